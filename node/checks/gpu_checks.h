#pragma once
// Checks for GPU-direct clients: GPUs, driver, memory registration path (nvidia_peermem or
// dma-buf), BAR1 against the transfer size, the GPU <-> NIC PCIe distance, and the ACS redirect
// and IOMMU mode on that path.

#include "node/checks/check_builder.h"

namespace rdmastack::node::checks {

// dma-buf memory regions came with kernel 5.12.
bool KernelHasDmaBufMr(int major, int minor);

CheckResult CheckGpuPresent(const NodeFacts& facts);
CheckResult CheckNvidiaDriver(const NodeFacts& facts);
// nvidia_peermem: needs the PeerDirect API of a MOFED/DOCA ib_core (or a kernel that ships it).
CheckResult CheckPeerMem(const NodeFacts& facts);
// dma-buf: open kernel module, kernel >= 5.12 (or a backport the NIC probe proves), Turing+,
// NIC-side probe (ibv_reg_dmabuf_mr fd=-1 -> EBADF), CUDA attribute when known.
CheckResult CheckDmaBuf(const NodeFacts& facts);
CheckResult CheckBar1(const NodeFacts& facts, int64_t max_transfer_bytes);
CheckResult CheckGpuNicDistance(const NodeFacts& facts, PathType max_distance);
// PCIe ACS: a bridge between a GPU and its NIC that redirects peer-to-peer traffic up to the
// root complex takes GPU-direct off the switch path (or breaks it where the root complex does not
// route peer-to-peer), whatever the topology says.
CheckResult CheckAcsRedirect(const NodeFacts& facts);
// The IOMMU: GPUDirect RDMA needs the NIC and the GPU to see one physical address space, so an
// IOMMU that translates their DMA (anything but off or pass-through) breaks it.
CheckResult CheckIommu(const NodeFacts& facts);
// Driver ABI drift: a loaded nvidia_peermem, ib_core, ib_uverbs, mlx5_ib or nvidia whose file on
// disk has changed since it was loaded (a network or GPU driver upgraded without a reload).
// GPU-direct works now; the next reload or reboot can leave nvidia_peermem unloadable. Warn, not
// Fail.
CheckResult CheckPeerMemAbi(const NodeFacts& facts);
// ConnectX-8 Data Direct: every Data Direct function on the node serves an RDMA device (the GPU's
// path is then measured from it, gpu.nic-distance). One that serves none leaves GPU traffic on
// the NIC's own function, which on such trays hangs off the CPU: said, never gating (the distance
// check gates on the path that results).
CheckResult CheckDataDirect(const NodeFacts& facts);

}  // namespace rdmastack::node::checks
