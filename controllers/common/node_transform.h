#pragma once
// How every controller caches Nodes: labels, plus the operator's own annotations (upgrade state),
// nothing else. Node status (conditions, images, heartbeats) and other tools' annotations are
// most of a Node's bytes and no controller reads them. One transform, because the informer for
// a type is shared and the first caller's transform wins.

#include "operator/runtime/reflector.h"

namespace rdmastack::controllers {

// Annotation keys the operator writes on Nodes contain this (upgrade.gwp.rdmastack.io/...).
inline constexpr char kOperatorAnnotationDomain[] = "rdmastack.io/";

runtime::Transform NodeLabelsAndOperatorAnnotations();

}  // namespace rdmastack::controllers
