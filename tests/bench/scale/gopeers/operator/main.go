// A minimal controller-runtime operator with the same watch set as our C++ operator, for the
// side-by-side benchmark of docs/benchmarks.md (issue 18): run beside rdmastack-operator on the same
// kube-apiserver to compare memory (RSS) and the idle API request rate.
//
//	gooperator --kubeconfig FILE [--leader-elect=true] [--leader-election-namespace rdmastack-bench]
//	           [--leader-election-id controller-runtime-peer] [--trim]
//
// It caches GatewayPools, ClientProfiles and RdmaNodes (unstructured, cluster-wide), all Nodes and
// Secrets, and the DaemonSets, Pods, Services, EndpointSlices and ConfigMaps labelled
// app.kubernetes.io/managed-by=rdmastack-operator. Two controllers (GatewayPool, ClientProfile)
// reconcile by reading their object and the Nodes it selects from the cache. It writes nothing
// to the API server (only its leader-election Lease). With --trim the cache drops managedFields
// and keeps of Nodes, Pods and Secrets only the fields our operator keeps
// (controllers/common/cache_transforms.cc).
//
// Once every cache has synced it prints one line to stdout:
//
//	{"impl":"controller-runtime","event":"synced","sync_ms":N}
//
// (N: milliseconds since the process started). Errors go to stderr. SIGTERM/SIGINT: exit 0.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"example.invalid/scalepeers/trim"
)

var processStart = time.Now()

const (
	managedByLabel   = "app.kubernetes.io/managed-by"
	managedByValue   = "rdmastack-operator"
	poolLabel        = "gatewaypool.rdmastack.io/name"
	profileLabel     = "clientprofile.rdmastack.io/name"
)

// From crds/*.yaml.
var (
	gatewayPoolGVK   = schema.GroupVersionKind{Group: "rdmastack.io", Version: "v1alpha1", Kind: "GatewayPool"}
	clientProfileGVK = schema.GroupVersionKind{Group: "rdmastack.io", Version: "v1alpha1", Kind: "ClientProfile"}
	rdmaNodeGVK      = schema.GroupVersionKind{Group: "rdmastack.io", Version: "v1alpha1", Kind: "RdmaNode"}
)

func newUnstructured(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

func newUnstructuredList(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}

// reconciler reads its object and the Nodes it selects from the cache and writes nothing.
type reconciler struct {
	reader client.Reader
	gvk    schema.GroupVersionKind
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := newUnstructured(r.gvk)
	if err := r.reader.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var opts []client.ListOption
	if sel, found, err := unstructured.NestedStringMap(obj.Object, "spec", "nodeSelector"); err == nil && found && len(sel) > 0 {
		opts = append(opts, client.MatchingLabels(sel))
	}
	var nodes corev1.NodeList
	if err := r.reader.List(ctx, &nodes, opts...); err != nil {
		return reconcile.Result{}, err
	}
	_ = len(nodes.Items) // counted, as ours counts matched nodes; nothing is written
	return reconcile.Result{}, nil
}

// enqueueAll maps any event to every object of kind gvk in the cache.
func enqueueAll(reader client.Reader, gvk schema.GroupVersionKind) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
		list := newUnstructuredList(gvk)
		if err := reader.List(ctx, list); err != nil {
			ctrl.Log.Error(err, "listing from the cache", "kind", gvk.Kind)
			return nil
		}
		reqs := make([]reconcile.Request, 0, len(list.Items))
		for i := range list.Items {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{
				Namespace: list.Items[i].GetNamespace(), Name: list.Items[i].GetName()}})
		}
		return reqs
	})
}

// enqueueByLabel maps a Pod to the object (same namespace) its label names.
func enqueueByLabel(label string) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		name := o.GetLabels()[label]
		if name == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	})
}

func setupController(mgr manager.Manager, gvk schema.GroupVersionKind, podLabel string, extraOwned client.Object) error {
	reader := mgr.GetCache()
	return builder.ControllerManagedBy(mgr).
		For(newUnstructured(gvk)).
		Owns(&appsv1.DaemonSet{}).
		Owns(&corev1.Service{}).
		Owns(extraOwned).
		Watches(&corev1.Node{}, enqueueAll(reader, gvk)).
		Watches(newUnstructured(rdmaNodeGVK), enqueueAll(reader, gvk)).
		Watches(&corev1.Secret{}, enqueueAll(reader, gvk)).
		Watches(&corev1.Pod{}, enqueueByLabel(podLabel)).
		Complete(&reconciler{reader: reader, gvk: gvk})
}

func fail(msg string, err error) {
	fmt.Fprintf(os.Stderr, "gooperator: %s: %v\n", msg, err)
	os.Exit(1)
}

func main() {
	// controller-runtime registers --kubeconfig on flag.CommandLine (pkg/client/config); ctrl.GetConfig
	// reads it and returns the config as shipped (client-side rate limiter off, QPS -1).
	leaderElect := flag.Bool("leader-elect", true, "hold a Lease while reconciling")
	leNamespace := flag.String("leader-election-namespace", "rdmastack-bench", "namespace of the Lease")
	leID := flag.String("leader-election-id", "controller-runtime-peer", "name of the Lease")
	trimCache := flag.Bool("trim", false, "strip managedFields and keep only the fields our operator caches")
	flag.Parse()
	if f := flag.Lookup("kubeconfig"); f == nil || f.Value.String() == "" {
		fmt.Fprintln(os.Stderr, "gooperator: --kubeconfig FILE is required")
		os.Exit(2)
	}

	logger := zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	cfg, err := ctrl.GetConfig()
	if err != nil {
		fail("loading kubeconfig", err)
	}

	// A ByObject Transform replaces DefaultTransform for its type; the trim functions keep no
	// managedFields either.
	var defaultTransform, nodeTransform, podTransform, secretTransform toolscache.TransformFunc
	if *trimCache {
		defaultTransform = cache.TransformStripManagedFields()
		nodeTransform, podTransform, secretTransform = trim.Node, trim.Pod, trim.Secret
	}
	managed := labels.SelectorFromSet(labels.Set{managedByLabel: managedByValue})
	byObject := map[client.Object]cache.ByObject{
		newUnstructured(gatewayPoolGVK):   {},
		newUnstructured(clientProfileGVK): {},
		newUnstructured(rdmaNodeGVK):      {},
		&corev1.Node{}:                    {Transform: nodeTransform},
		&corev1.Secret{}:                  {Transform: secretTransform},
		&appsv1.DaemonSet{}:               {Label: managed},
		&corev1.Pod{}:                     {Label: managed, Transform: podTransform},
		&corev1.Service{}:                 {Label: managed},
		&discoveryv1.EndpointSlice{}:      {Label: managed},
		&corev1.ConfigMap{}:               {Label: managed},
	}
	cacheOpts := cache.Options{ByObject: byObject, DefaultTransform: defaultTransform}

	leaseDuration, renewDeadline, retryPeriod := 15*time.Second, 10*time.Second, 2*time.Second
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:                   cacheOpts,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          *leaderElect,
		LeaderElectionNamespace: *leNamespace,
		LeaderElectionID:        *leID,
		// LeaderElectionResourceLock left empty: controller-runtime's default, "leases".
		LeaseDuration: &leaseDuration,
		RenewDeadline: &renewDeadline,
		RetryPeriod:   &retryPeriod,
	})
	if err != nil {
		fail("creating the manager", err)
	}

	if err := setupController(mgr, gatewayPoolGVK, poolLabel, &discoveryv1.EndpointSlice{}); err != nil {
		fail("setting up the GatewayPool controller", err)
	}
	if err := setupController(mgr, clientProfileGVK, profileLabel, &corev1.ConfigMap{}); err != nil {
		fail("setting up the ClientProfile controller", err)
	}

	ctx := ctrl.SetupSignalHandler()

	// Like ours, fill every cache before (and regardless of) holding the Lease: controllers only
	// ask for their informers once elected, so register the whole watch set now. Before the cache
	// starts, GetInformer only registers.
	for obj := range byObject {
		if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
			fail("registering an informer", err)
		}
	}
	go func() {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return
		}
		line, _ := json.Marshal(struct {
			Impl   string `json:"impl"`
			Event  string `json:"event"`
			SyncMs int64  `json:"sync_ms"`
		}{"controller-runtime", "synced", time.Since(processStart).Milliseconds()})
		fmt.Fprintln(os.Stdout, string(line))
	}()

	if err := mgr.Start(ctx); err != nil {
		fail("running the manager", err)
	}
	os.Exit(0)
}
