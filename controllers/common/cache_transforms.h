#pragma once
// How the controllers cache the types they share (the informer for a type is shared and the first
// caller's transform wins, so there is one transform per type).
//
// Nodes: labels, the cordon (spec.unschedulable: node maintenance), and the operator's own
// annotations (upgrade and maintenance state), nothing else. Node status
// (conditions, images, heartbeats) and other tools' annotations are most of a Node's bytes and no
// controller reads them. One transform, because the informer for a type is shared and the first
// caller's transform wins.

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "operator/runtime/manager.h"
#include "operator/runtime/reflector.h"

namespace rdmastack::controllers {

// Annotation keys the operator writes on Nodes contain this (upgrade.gwp.rdmastack.io/...).
inline constexpr char kOperatorAnnotationDomain[] = "rdmastack.io/";

// Every label (tests and benches; the operator's Node cache keeps fewer, below).
runtime::Transform NodeLabelsAndOperatorAnnotations();
// The same with only the labels whose keys `keys()` holds at the moment an object arrives, and
// the operator's own (node_label_keys.h; NodeLabelFilter decides the keys).
runtime::Transform NodeLabelsKeptAndOperatorAnnotations(
    std::function<std::shared_ptr<const std::set<std::string>>()> keys);

// Secrets as the set of their data keys: the cache never holds S3 keys (a check that needs them
// reads them with a GET for that moment only).
runtime::Transform SecretKeysOnly();

// Pods the operator runs (gateways, clients): labels, node, address, and the status fields that
// say whether and why not they are Ready.
runtime::Transform PodReadiness();

// Pods the operator does not run but must know the place of (applications that name a
// ClientProfile): labels, node and phase.
runtime::Transform PodPlacement();

// The options of a shared informer for `type` (all namespaces) with this selector and transform.
runtime::InformerOptions CachedOptions(const k8s::ResourceType& type, std::string label_selector,
                                       runtime::Transform transform);

// The manager's shared informer for `type` (all namespaces) with this selector and transform.
runtime::Informer& CachedInformer(runtime::Manager& manager, const k8s::ResourceType& type,
                                  std::string label_selector = "",
                                  runtime::Transform transform = runtime::StripManagedFields());

}  // namespace rdmastack::controllers
