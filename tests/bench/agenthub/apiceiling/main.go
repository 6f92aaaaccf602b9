// apiceiling makes, from a trivial client-go client, the API writes the rdmastack operator makes
// for N nodes' first agent reports (docs/agenthub.md "Writes through the real operator"): per node
// the RdmaNode by server-side apply (owner: the Node), its status subresource by server-side apply,
// and one merge patch of the Node's labels, all with field manager rdmastack-operator and the
// operator's bodies for the benchmark agents' reports. W workers each take the next node and make
// its three writes in order, with client-go's rate limiter off, so the API server alone sets the
// pace. It prints the wall time and writes/s, the client's latencies, the API server's own time
// per write from its audit log (stageTimestamp - requestReceivedTimestamp), the CPU the named
// processes used and the machine's load. A bench tool only (scripts/bench-apiceiling.sh); CI never
// builds it.
//
//	apiceiling -kubeconfig FILE -audit-log FILE -nodes N -workers W [-pids name=PID,...]
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	fieldManager = "rdmastack-operator"
	runLabel     = "rdmastack.io/apiceiling"
)

var rdmanodes = schema.GroupVersionResource{Group: "rdmastack.io", Version: "v1alpha1", Resource: "rdmanodes"}

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "apiceiling: "+format+"\n", args...)
	os.Exit(1)
}

// The operator's bodies (controllers/rdmanode/rdmanode_reconciler.cc, rdmanode_status.cc,
// node_labels.cc) for a report that names only its node and a content hash, as the benchmark's
// load agents send: no devices, no checks, no verdicts.
func applyBody(name, uid string) []byte {
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "rdmastack.io/v1alpha1", "kind": "RdmaNode",
		"metadata": map[string]any{"name": name, "ownerReferences": []any{map[string]any{
			"apiVersion": "v1", "kind": "Node", "name": name, "uid": uid, "controller": true}}},
		"spec": map[string]any{"nodeName": name},
	})
	return b
}

func statusBody(name string, generation int64, now string) []byte {
	cond := func(typ, status, reason, message string) map[string]any {
		return map[string]any{"type": typ, "status": status, "observedGeneration": generation,
			"lastTransitionTime": now, "reason": reason, "message": message}
	}
	notEvaluated := func(typ, capability, askedBy string) map[string]any {
		return cond(typ, "Unknown", "NotEvaluated", "the agent did not evaluate "+capability+": only "+
			askedBy+" selecting this node asks for it")
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "rdmastack.io/v1alpha1", "kind": "RdmaNode",
		"metadata": map[string]any{"name": name},
		"status": map[string]any{
			"observedGeneration": generation,
			"host":               map[string]any{},
			"linkLayer":          "None",
			"agent":              map[string]any{"state": "Connected", "reportHash": "bench", "lastReportTime": now},
			"conditions": []any{
				cond("Reporting", "True", "Reporting", "agent (unknown version) reports for this node"),
				notEvaluated("GatewayCapable", "Gateway", "a GatewayPool"),
				notEvaluated("GPUDirectCapable", "GPUDirect", "a ClientProfile with transport Auto or GPUDirect"),
				notEvaluated("HostMemoryCapable", "HostMemory", "a ClientProfile"),
			},
		},
	})
	return b
}

var labelBody = []byte(`{"metadata":{"labels":{"rdmastack.io/link-layer":"None"}}}`)

// clients builds client-go clients over HTTP/1.1 with a keep-alive pool as large as the workers
// (the operator's REST client is HTTP/1.1, one connection per request in flight), or over one
// HTTP/2 connection; the rate limiter is off (QPS < 0).
func clients(kubeconfig string, workers int, http2 bool, agent string) (kubernetes.Interface, dynamic.Interface) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		die("kubeconfig %s: %v", kubeconfig, err)
	}
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		die("TLS config from %s: %v", kubeconfig, err)
	}
	tr := &http.Transport{TLSClientConfig: tlsCfg, MaxIdleConnsPerHost: workers + 8, MaxIdleConns: workers + 8,
		IdleConnTimeout: 90 * time.Second, ForceAttemptHTTP2: http2}
	if !http2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	c := &rest.Config{Host: cfg.Host, APIPath: cfg.APIPath, BearerToken: cfg.BearerToken, Transport: tr,
		QPS: -1, Burst: 1 << 20, UserAgent: agent, Timeout: 60 * time.Second}
	kube, err := kubernetes.NewForConfig(c)
	if err != nil {
		die("client: %v", err)
	}
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		die("dynamic client: %v", err)
	}
	return kube, dyn
}

// parallel runs fn(i) for i in [0, n) on w goroutines and returns the first error.
func parallel(n, w int, fn func(i int) error) error {
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for t := 0; t < w; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

type cpuSample struct {
	ticks map[string]float64 // process name -> utime+stime, in clock ticks
	busy  float64            // machine: non-idle ticks (all cores)
	total float64
	load  string
}

const clockTicks = 100 // USER_HZ on Linux

func readProcTicks(pid string) float64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return u + k
}

func sample(pids map[string]string) cpuSample {
	out := cpuSample{ticks: map[string]float64{}}
	for name, pid := range pids {
		out.ticks[name] = readProcTicks(pid)
	}
	out.ticks["apiceiling"] = readProcTicks("self")
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])[1:]
		for i, v := range f {
			x, _ := strconv.ParseFloat(v, 64)
			out.total += x
			if i != 3 && i != 4 { // idle, iowait
				out.busy += x
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		out.load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return out
}

type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	Stage     string `json:"stage"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
	Stage2   time.Time `json:"stageTimestamp"`
}

type stats struct{ d []time.Duration }

func (s *stats) add(d time.Duration) { s.d = append(s.d, d) }
func (s *stats) String() string {
	if len(s.d) == 0 {
		return "none"
	}
	sort.Slice(s.d, func(i, j int) bool { return s.d[i] < s.d[j] })
	var sum time.Duration
	for _, d := range s.d {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return fmt.Sprintf("n %d mean %.1f ms p50 %.1f p99 %.1f max %.1f (sum %.1f s)", len(s.d),
		ms(sum/time.Duration(len(s.d))), ms(s.d[len(s.d)/2]), ms(s.d[len(s.d)*99/100]), ms(s.d[len(s.d)-1]),
		sum.Seconds())
}
func (s *stats) sum() time.Duration {
	var t time.Duration
	for _, d := range s.d {
		t += d
	}
	return t
}

// auditTimes reads every audit log file beside path (rotated ones too) for this run's user agent
// and returns the API server's own time per write, by "verb resource[/subresource]", and the
// number of writes in [from, to] that other clients made.
func auditTimes(path, agent string, from, to time.Time) (map[string]*stats, map[string]int) {
	files, _ := filepath.Glob(strings.TrimSuffix(path, ".log") + "-*.log")
	files = append(files, path)
	mine, others := map[string]*stats{}, map[string]int{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			die("audit log: %v", err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var e auditEvent
			if json.Unmarshal(line, &e) != nil || e.Stage != "ResponseComplete" {
				continue
			}
			if e.Received.Before(from) || e.Received.After(to) {
				continue
			}
			key := e.Verb + " " + e.ObjectRef.Resource
			if e.ObjectRef.Subresource != "" {
				key += "/" + e.ObjectRef.Subresource
			}
			if e.UserAgent != agent {
				ua := e.UserAgent
				if i := strings.IndexByte(ua, '/'); i > 0 {
					ua = ua[:i]
				}
				others[ua+": "+key]++
				continue
			}
			if mine[key] == nil {
				mine[key] = &stats{}
			}
			mine[key].add(e.Stage2.Sub(e.Received))
		}
		fh.Close()
	}
	return mine, others
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin (system:masters) kubeconfig")
	auditLog := flag.String("audit-log", "", "the API server's audit log (JSON, Metadata level for writes)")
	n := flag.Int("nodes", 1000, "nodes: three writes each")
	workers := flag.Int("workers", 16, "nodes written concurrently")
	http2 := flag.Bool("http2", false, "one HTTP/2 connection instead of HTTP/1.1 keep-alive (the operator's)")
	pidList := flag.String("pids", "", "name=PID,... whose CPU time during the writes is reported")
	quiet := flag.Duration("quiet", 10*time.Second, "before the writes, wait until other clients wrote no Node or RdmaNode for this long")
	minWait := flag.Duration("min-wait", 70*time.Second,
		"before the writes, wait at least this long after creating the Nodes (past kube-controller-manager's node monitor grace period)")
	flag.Parse()
	if *kubeconfig == "" || *auditLog == "" || *n <= 0 || *workers <= 0 {
		die("usage: apiceiling -kubeconfig FILE -audit-log FILE -nodes N -workers W [-pids name=PID,...] [-http2]")
	}
	pids := map[string]string{}
	for _, kv := range strings.Split(*pidList, ",") {
		if name, pid, ok := strings.Cut(kv, "="); ok {
			pids[name] = pid
		}
	}
	run := fmt.Sprintf("c%d", time.Now().Unix()%1000000)
	agent := "rdmastack-apiceiling/" + run
	kube, dyn := clients(*kubeconfig, *workers, *http2, agent)
	ctx := context.Background()
	name := func(i int) string { return fmt.Sprintf("ceil-%s-%d", run, i) }

	// Setup, not timed: the Nodes (plain objects, no kubelet), as the bench's MakeAgents creates.
	t0 := time.Now()
	uids := make([]string, *n)
	err := parallel(*n, 8, func(i int) error {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name(i), Labels: map[string]string{runLabel: run}}}
		got, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("create Node %s: %w", name(i), err)
		}
		uids[i] = string(got.UID)
		return nil
	})
	if err != nil {
		die("%v", err)
	}
	fmt.Printf("setup: %d Nodes created in %.1f s\n", *n, time.Since(t0).Seconds())
	// kube-controller-manager's node lifecycle controller reacts to new Nodes (taints, and Ready
	// Unknown once --node-monitor-grace-period passes without a kubelet): let it finish first.
	waitQuiet(*auditLog, agent, *quiet, *minWait)

	before := sample(pids)
	start := time.Now()
	var lat [3]stats
	var latMu sync.Mutex
	var failed atomic.Int64
	err = parallel(*n, *workers, func(i int) error {
		nm := name(i)
		var d [3]time.Duration
		t := time.Now()
		applied, err := dyn.Resource(rdmanodes).Patch(ctx, nm, types.ApplyPatchType, applyBody(nm, uids[i]),
			metav1.PatchOptions{FieldManager: fieldManager, Force: ptr(true)})
		if err != nil {
			failed.Add(1)
			return fmt.Errorf("apply RdmaNode %s: %w", nm, err)
		}
		d[0] = time.Since(t)
		t = time.Now()
		now := time.Now().UTC().Format(time.RFC3339)
		if _, err := dyn.Resource(rdmanodes).Patch(ctx, nm, types.ApplyPatchType,
			statusBody(nm, applied.GetGeneration(), now),
			metav1.PatchOptions{FieldManager: fieldManager, Force: ptr(true)}, "status"); err != nil {
			failed.Add(1)
			return fmt.Errorf("apply RdmaNode %s status: %w", nm, err)
		}
		d[1] = time.Since(t)
		t = time.Now()
		if _, err := kube.CoreV1().Nodes().Patch(ctx, nm, types.MergePatchType, labelBody,
			metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
			failed.Add(1)
			return fmt.Errorf("label Node %s: %w", nm, err)
		}
		d[2] = time.Since(t)
		latMu.Lock()
		for k := range d {
			lat[k].add(d[k])
		}
		latMu.Unlock()
		return nil
	})
	wall := time.Since(start)
	after := sample(pids)
	if err != nil {
		die("%d writes failed, first: %v", failed.Load(), err)
	}
	writes := 3 * *n
	fmt.Printf("writes: %d for %d nodes with %d workers (%s) in %.2f s: %.0f writes/s, %.0f nodes/s\n",
		writes, *n, *workers, map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}[*http2], wall.Seconds(),
		float64(writes)/wall.Seconds(), float64(*n)/wall.Seconds())
	for k, what := range []string{"RdmaNode apply", "its status", "Node label patch"} {
		fmt.Printf("client latency, %s: %s\n", what, lat[k].String())
	}
	cores := (after.total - before.total) / wall.Seconds() / clockTicks
	fmt.Printf("machine: %.0f%% busy over %.1f cores; load average %s before, %s after\n",
		100*(after.busy-before.busy)/(after.total-before.total), cores, before.load, after.load)
	names := make([]string, 0, len(after.ticks))
	for k := range after.ticks {
		names = append(names, k)
	}
	sort.Strings(names)
	var cpu []string
	for _, k := range names {
		cpu = append(cpu, fmt.Sprintf("%s %.0f%%", k, 100*(after.ticks[k]-before.ticks[k])/clockTicks/wall.Seconds()))
	}
	fmt.Printf("CPU during the writes (%% of one core): %s\n", strings.Join(cpu, ", "))

	time.Sleep(2 * time.Second) // the audit log's last lines
	mine, others := auditTimes(*auditLog, agent, start.Add(-time.Second), start.Add(wall+time.Second))
	keys := make([]string, 0, len(mine))
	var serverSum time.Duration
	for k, s := range mine {
		keys = append(keys, k)
		serverSum += s.sum()
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("API server time, %s: %s\n", k, mine[k].String())
	}
	fmt.Printf("API server time for all %d writes: %.1f s in %.1f s: %.1f in flight on average\n", writes,
		serverSum.Seconds(), wall.Seconds(), serverSum.Seconds()/wall.Seconds())
	var other []string
	for k, v := range others {
		other = append(other, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(other)
	if len(other) == 0 {
		other = []string{"none"}
	}
	fmt.Printf("other clients' writes meanwhile: %s\n", strings.Join(other, ", "))

	// Cleanup, not timed: the Nodes, and the RdmaNodes here too (the driver stops the garbage
	// collector with kube-controller-manager).
	if err := kube.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: runLabel + "=" + run}); err != nil && !apierrors.IsNotFound(err) {
		die("delete Nodes: %v", err)
	}
	if err := dyn.Resource(rdmanodes).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		die("delete RdmaNodes: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// waitQuiet waits at least minWait, and until the audit log shows no write to Nodes or RdmaNodes by
// another client for `quiet` (kube-controller-manager's node lifecycle controller sets the new
// Nodes' conditions and taints; the garbage collector deletes the last run's RdmaNodes), reading
// only what was appended since the last look.
func waitQuiet(path, agent string, quiet, minWait time.Duration) {
	t0 := time.Now()
	f, err := os.Open(path)
	if err != nil {
		die("audit log: %v", err)
	}
	defer f.Close()
	if _, err := f.Seek(0, 2); err != nil {
		die("audit log: %v", err)
	}
	rd := bufio.NewReaderSize(f, 1<<20)
	var partial []byte
	last := time.Now()
	for time.Since(last) < quiet || time.Since(t0) < minWait {
		time.Sleep(time.Second)
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil { // the writer's line so far: completed on the next look
				partial = append(partial, line...)
				break
			}
			if len(partial) > 0 {
				line, partial = append(partial, line...), nil
			}
			var e auditEvent
			// Only what touches the objects written here: the API server's own lease renewals
			// (every 10 s) would never let a quiet window come.
			if json.Unmarshal(line, &e) == nil && e.UserAgent != agent &&
				(e.ObjectRef.Resource == "nodes" || e.ObjectRef.Resource == "rdmanodes") {
				last = time.Now()
			}
		}
	}
	fmt.Printf("setup: other clients' writes quiet for %s after %.1f s\n", quiet, time.Since(t0).Seconds())
}
