#pragma once
// Checks for GPU-direct clients: GPUs, driver, memory registration path (nvidia_peermem or
// dma-buf), BAR1 against the transfer size, and the GPU <-> NIC PCIe distance.

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

}  // namespace rdmastack::node::checks
