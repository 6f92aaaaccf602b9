// A minimal AgentHub in Go (grpc-go + client-go) doing the work the C++ hub does per agent, for
// the side-by-side benchmark only (tests/bench/agenthub, docs/benchmarks.md): TLS with a CA it
// publishes in the ConfigMap the bench reads, a TokenReview per distinct token (cached, one
// review in flight per token), the pod-bound identity check against the Pod, one stream per
// node (a newer one replaces the older), an Ack per report. It counts what arrived and prints the
// same summary line as agenthub-bench-hub on SIGTERM.
//
//	gohub KUBECONFIG NAMESPACE SERVICEACCOUNT HEARTBEAT_S PORT_FILE
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	pb "example.invalid/gohub/pb"
)

const audience = "rdmastack-agenthub"

type verdict struct {
	podName, podUID string
	err             error
}

type hub struct {
	pb.UnimplementedAgentHubServer
	kube      kubernetes.Interface
	ns, user  string
	heartbeat int32

	mu       sync.Mutex
	cache    map[[32]byte]verdict
	inFlight map[[32]byte]chan struct{}
	streams  map[string]context.CancelFunc

	accepted, reports, heartbeats, reviews atomic.Int64
}

func (h *hub) review(ctx context.Context, token string) verdict {
	key := sha256.Sum256([]byte(token))
	for {
		h.mu.Lock()
		if v, ok := h.cache[key]; ok {
			h.mu.Unlock()
			return v
		}
		wait, busy := h.inFlight[key]
		if !busy {
			h.inFlight[key] = make(chan struct{})
			h.mu.Unlock()
			break
		}
		h.mu.Unlock()
		<-wait
	}
	h.reviews.Add(1)
	v := h.reviewOnce(ctx, token)
	h.mu.Lock()
	if len(h.cache) < 10000 {
		h.cache[key] = v
	}
	close(h.inFlight[key])
	delete(h.inFlight, key)
	h.mu.Unlock()
	return v
}

func (h *hub) reviewOnce(ctx context.Context, token string) verdict {
	tr := &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token, Audiences: []string{audience}}}
	got, err := h.kube.AuthenticationV1().TokenReviews().Create(ctx, tr, metav1.CreateOptions{})
	if err != nil {
		return verdict{err: status.Errorf(codes.Unavailable, "token review: %v", err)}
	}
	if !got.Status.Authenticated {
		return verdict{err: status.Errorf(codes.Unauthenticated, "not authenticated: %s", got.Status.Error)}
	}
	if got.Status.User.Username != h.user {
		return verdict{err: status.Errorf(codes.PermissionDenied, "token of %s", got.Status.User.Username)}
	}
	extra := got.Status.User.Extra
	name, uid := extra["authentication.kubernetes.io/pod-name"], extra["authentication.kubernetes.io/pod-uid"]
	if len(name) != 1 || len(uid) != 1 {
		return verdict{err: status.Error(codes.PermissionDenied, "token is not bound to a pod")}
	}
	return verdict{podName: name[0], podUID: uid[0]}
}

func (h *hub) Connect(stream pb.AgentHub_ConnectServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	hello := first.GetHello()
	if hello == nil {
		return status.Error(codes.InvalidArgument, "first message must be Hello")
	}
	ctx := stream.Context()
	v := h.review(ctx, hello.Token)
	if v.err != nil {
		return v.err
	}
	pod, err := h.kube.CoreV1().Pods(h.ns).Get(ctx, v.podName, metav1.GetOptions{})
	if err != nil {
		return status.Errorf(codes.PermissionDenied, "pod %s: %v", v.podName, err)
	}
	if string(pod.UID) != v.podUID || pod.Spec.NodeName != hello.NodeName {
		return status.Errorf(codes.PermissionDenied, "pod %s is not on node %s", v.podName, hello.NodeName)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.mu.Lock()
	if old, ok := h.streams[hello.NodeName]; ok {
		old()
	}
	h.streams[hello.NodeName] = cancel
	h.mu.Unlock()
	h.accepted.Add(1)
	if err := stream.Send(&pb.HubMessage{Body: &pb.HubMessage_Ack{Ack: &pb.Ack{HeartbeatSeconds: h.heartbeat}}}); err != nil {
		return err
	}
	msgs := make(chan *pb.AgentMessage)
	errs := make(chan error, 1)
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				errs <- err
				return
			}
			msgs <- m
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return status.Error(codes.Aborted, "replaced by a newer stream")
		case err := <-errs:
			return err
		case m := <-msgs:
			switch body := m.Body.(type) {
			case *pb.AgentMessage_Report:
				h.reports.Add(1)
				ack := &pb.Ack{ReportHash: body.Report.ContentHash, HeartbeatSeconds: h.heartbeat}
				if err := stream.Send(&pb.HubMessage{Body: &pb.HubMessage_Ack{Ack: ack}}); err != nil {
					return err
				}
			case *pb.AgentMessage_Heartbeat:
				h.heartbeats.Add(1)
			}
		}
	}
}

// A CA and a serving certificate for 127.0.0.1; the CA goes to the ConfigMap agents read.
func certificates() (tls.Certificate, []byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gohub-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "gohub"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caPEM, nil
}

func publishCA(kube kubernetes.Interface, ns string, caPEM []byte) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rdmastack-agenthub-ca", Namespace: ns},
		Data: map[string]string{"ca.crt": string(caPEM)}}
	ctx := context.Background()
	_, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	}
	return err
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintf(os.Stderr, "usage: %s KUBECONFIG NAMESPACE SERVICEACCOUNT HEARTBEAT_S PORT_FILE\n", os.Args[0])
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	config.QPS, config.Burst = 1000, 1000 // the C++ hub's client has no client-side rate limit
	kube := kubernetes.NewForConfigOrDie(config)
	beat, _ := strconv.Atoi(os.Args[4])
	h := &hub{kube: kube, ns: os.Args[2], user: "system:serviceaccount:" + os.Args[2] + ":" + os.Args[3],
		heartbeat: int32(beat), cache: map[[32]byte]verdict{}, inFlight: map[[32]byte]chan struct{}{},
		streams: map[string]context.CancelFunc{}}
	cert, caPEM, err := certificates()
	if err == nil {
		err = publishCA(kube, h.ns, caPEM)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	creds := credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	server := grpc.NewServer(grpc.Creds(creds), grpc.MaxRecvMsgSize(4<<20),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 60 * time.Second, Timeout: 20 * time.Second}))
	pb.RegisterAgentHubServer(server, h)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	port := lis.Addr().(*net.TCPAddr).Port
	if err := os.WriteFile(os.Args[5], []byte(strconv.Itoa(port)+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() { _ = server.Serve(lis) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	fmt.Printf("accepted=%d reports=%d heartbeats=%d token_reviews=%d\n", h.accepted.Load(),
		h.reports.Load(), h.heartbeats.Load(), h.reviews.Load())
	os.Exit(0)
}
