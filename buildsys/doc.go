// Package buildsys says what a spec asks of the build system that makes
// its root filesystem and kernel: the kernel configuration its variants
// need to boot without an initramfs and to run their tests (`fsbench
// kconfig`), and the Buildroot or Yocto settings that give `fsbench build`
// its host tools and the target its runner and test tools (`fsbench
// buildvars`). It also keeps the facts the meta-fsbench layer and the
// buildroot-pkg tree rely on: the Go toolchains of the releases they
// support, and the list of Go modules Yocto fetches.
//
// It works on the resolved plan only, never on HCL, and it never runs a
// tool or writes a file: the answers are computed from the plan and the
// filesystems catalogue, so the same spec always gives the same text.
package buildsys
