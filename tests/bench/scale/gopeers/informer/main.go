// The client-go side of the informer scale benchmark (tests/bench/scale, docs/bench-scale.md): a
// Node informer and a Pod informer (all namespaces) in one process, in one of three forms, with the
// same output as our C++ peer (informer-scale-peer) so that scripts/bench-scale.sh reads both alike.
//
//	goinformer --kubeconfig FILE --form shipped|transform|metadata [--settle 5s]
//
//   - shipped: informers.NewSharedInformerFactory as a client-go program gets it (typed objects,
//     managedFields and all).
//   - transform: the same informers with SetTransform keeping exactly the fields our operator's
//     cache keeps (controllers/common/cache_transforms.cc): Nodes their identity, the labels a
//     pool selecting on node-role.rdmastack.io/storage leaves them (that key and the operator's
//     own, trim.NodeKeeping) and the annotations in the rdmastack.io domain; Pods their
//     identity, labels, node, IP, conditions and container statuses.
//   - metadata: metadatainformer (PartialObjectMetadata), as shipped.
//
// Line 1 (after both caches synced and a settle): sync wall and CPU time, RSS before start, after
// sync and the peak (VmHWM). Then it waits for a relist (each informer asking for its whole state
// again) and prints line 2 with the RSS a settle after it. It runs until SIGTERM.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"example.invalid/scalepeers/trim"
)

func procStatusKB(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := s.Text(); strings.HasPrefix(line, field+":") {
			v, _ := strconv.ParseInt(strings.Fields(line[len(field)+1:])[0], 10, 64)
			return v
		}
	}
	return -1
}

func cpuMillis() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

func emit(v map[string]interface{}) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func main() {
	start := time.Now()
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	form := flag.String("form", "shipped", "shipped, transform or metadata")
	settle := flag.Duration("settle", 5*time.Second, "wait this long after a sync before reading memory")
	flag.Parse()
	fail := func(format string, a ...interface{}) {
		fmt.Fprintf(os.Stderr, "goinformer: "+format+"\n", a...)
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("%v", err)
	}
	// Enough client-side rate that the informers, not the limiter, set the pace (our C++ client
	// has no limiter).
	config.QPS, config.Burst = 1000, 1000

	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()

	var stores []cache.Store
	// A relist is a second request for a collection's whole state: with watch-list (on by default
	// since 1.35) a watch with sendInitialEvents. Counting the requests is the only way to see it:
	// client-go delivers the relisted objects whose resourceVersion did not change as resync
	// events, which reach only handlers that are due a periodic resync (processDeltas in
	// tools/cache/shared_informer.go), so no event handler sees them.
	var stateRequests atomic.Int64
	tweak := func(o *metav1.ListOptions) {
		if o.SendInitialEvents != nil && *o.SendInitialEvents {
			stateRequests.Add(1)
		}
	}
	var startInformers func()
	rssStart := procStatusKB("VmRSS")
	cpuStart := cpuMillis()
	switch *form {
	case "shipped", "transform":
		cs, err := kubernetes.NewForConfig(config)
		if err != nil {
			fail("%v", err)
		}
		factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(tweak))
		nodes := factory.Core().V1().Nodes().Informer()
		pods := factory.Core().V1().Pods().Informer()
		if *form == "transform" {
			// As our peer's Node cache with one pool selecting on node-role.rdmastack.io/storage
			// (tests/bench/scale/informer_scale_peer.cc).
			keep := map[string]bool{"node-role.rdmastack.io/storage": true}
			if err := nodes.SetTransform(trim.NodeKeeping(keep)); err != nil {
				fail("%v", err)
			}
			if err := pods.SetTransform(trim.Pod); err != nil {
				fail("%v", err)
			}
		}
		for _, inf := range []cache.SharedIndexInformer{nodes, pods} {
			stores = append(stores, inf.GetStore())
		}
		startInformers = func() {
			factory.Start(ctx.Done())
			for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
				if !ok {
					fail("%v did not sync", typ)
				}
			}
		}
	case "metadata":
		mc, err := metadata.NewForConfig(config)
		if err != nil {
			fail("%v", err)
		}
		factory := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, metav1.NamespaceAll, tweak)
		for _, gvr := range []schema.GroupVersionResource{{Version: "v1", Resource: "nodes"},
			{Version: "v1", Resource: "pods"}} {
			inf := factory.ForResource(gvr).Informer()
			stores = append(stores, inf.GetStore())
		}
		startInformers = func() {
			factory.Start(ctx.Done())
			for gvr, ok := range factory.WaitForCacheSync(ctx.Done()) {
				if !ok {
					fail("%v did not sync", gvr)
				}
			}
		}
	default:
		fail("--form must be shipped, transform or metadata, not %q", *form)
	}

	syncStart := time.Now()
	startInformers()
	syncMs := float64(time.Since(syncStart).Microseconds()) / 1000
	cpuMs := cpuMillis() - cpuStart
	objects := 0
	for _, s := range stores {
		objects += len(s.ListKeys())
	}
	time.Sleep(*settle)
	emit(map[string]interface{}{"impl": "client-go", "form": *form, "event": "synced",
		"objects": objects, "sync_ms": syncMs, "cpu_ms": cpuMs, "rss_start_kb": rssStart,
		"rss_synced_kb": procStatusKB("VmRSS"), "hwm_kb": procStatusKB("VmHWM"),
		"process_ms": time.Since(start).Milliseconds()})

	// Both informers asked for their state again (the first sync made one request each); the
	// settle below gives the answer time to arrive and replace the cache.
	for requests := int64(len(stores)); stateRequests.Load() < 2*requests; {
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
	cpuRelist := cpuMillis()
	time.Sleep(*settle)
	emit(map[string]interface{}{"impl": "client-go", "form": *form, "event": "relisted",
		"rss_kb": procStatusKB("VmRSS"), "hwm_kb": procStatusKB("VmHWM"), "cpu_ms": cpuRelist - cpuStart})
	<-ctx.Done()
}
