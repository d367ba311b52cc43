// The host the embedded cluster's node runs on, as k3s reports it and a container sees it: a
// Debian 12 machine with its distribution kernel (`uname -r`, /proc/version, the Node's nodeInfo).
// Nothing here names the benchmark: a model reading them sees a k3s server like any other.

export const KERNEL_RELEASE = "6.1.0-28-amd64";
export const KERNEL_VERSION = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)";
export const OS_IMAGE = "Debian GNU/Linux 12 (bookworm)";
export const PROC_VERSION = `Linux version ${KERNEL_RELEASE} (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) ${KERNEL_VERSION}\n`;
