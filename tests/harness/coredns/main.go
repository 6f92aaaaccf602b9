// The cluster DNS of the local harness: CoreDNS with only the plugins its Corefile
// (scripts/cluster.sh write_corefile) names, plus log for debugging. Leaving out the cloud DNS
// backends (route53, azure, clouddns) keeps their SDKs out of the build. Every directive the
// Corefile uses must be imported here: CoreDNS refuses an unknown one at start.
package main

import (
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"

	"github.com/coredns/coredns/coremain"
)

func main() { coremain.Run() }
