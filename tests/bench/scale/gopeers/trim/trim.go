// Package trim keeps of Nodes, Pods and Secrets what our operator's cache keeps
// (controllers/common/cache_transforms.cc), for the Go peers of the scale benchmark. Each function
// builds a new object so that the decoded one can be collected; other types pass through.
package trim

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AnnotationDomain marks the Node annotations our operator reads.
const AnnotationDomain = "rdmastack.io/"

// identity is the metadata every trimmed object keeps.
func identity(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
		ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		DeletionTimestamp: m.DeletionTimestamp, OwnerReferences: m.OwnerReferences}
}

// Node keeps the identity, the labels, the cordon and the annotations in AnnotationDomain.
func Node(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{TypeMeta: n.TypeMeta, ObjectMeta: identity(&n.ObjectMeta)}
	out.Labels = n.Labels
	out.Spec.Unschedulable = n.Spec.Unschedulable
	for k, v := range n.Annotations {
		if strings.Contains(k, AnnotationDomain) {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	return out, nil
}

// IsOperatorLabel says whether a Node label key is one our operator writes and reads back
// (controllers/common/node_label_keys.h): always kept by its Node cache.
func IsOperatorLabel(k string) bool {
	return strings.HasPrefix(k, "rdmastack.io/") || strings.HasPrefix(k, "gwp.rdmastack.io/")
}

// NodeKeeping is Node with only the labels in keep and the operator's own: what our operator's
// Node cache holds when the live selectors name exactly the keys in keep
// (controllers/common/node_label_filter.h).
func NodeKeeping(keep map[string]bool) func(any) (any, error) {
	return func(obj any) (any, error) {
		out, err := Node(obj)
		n, ok := out.(*corev1.Node)
		if err != nil || !ok || n.Labels == nil {
			return out, err
		}
		labels := map[string]string{}
		for k, v := range n.Labels {
			if keep[k] || IsOperatorLabel(k) {
				labels[k] = v
			}
		}
		n.Labels = labels
		return n, nil
	}
}

// Pod keeps the identity, labels, node, IP, conditions and container statuses.
func Pod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{TypeMeta: p.TypeMeta, ObjectMeta: identity(&p.ObjectMeta)}
	out.Labels = p.Labels
	out.Spec.NodeName = p.Spec.NodeName
	out.Status.PodIP = p.Status.PodIP
	out.Status.Conditions = p.Status.Conditions
	out.Status.ContainerStatuses = p.Status.ContainerStatuses
	out.Status.InitContainerStatuses = p.Status.InitContainerStatuses
	return out, nil
}

// Secret keeps the identity, the type and the data keys (values emptied).
func Secret(obj any) (any, error) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return obj, nil
	}
	out := &corev1.Secret{TypeMeta: s.TypeMeta, ObjectMeta: identity(&s.ObjectMeta), Type: s.Type}
	if len(s.Data) > 0 {
		out.Data = make(map[string][]byte, len(s.Data))
		for k := range s.Data {
			out.Data[k] = []byte{}
		}
	}
	return out, nil
}
