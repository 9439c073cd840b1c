// Package kernel provides the Linux kernels that fsbench boots its disk images
// with under QEMU: stock Debian kernels, so that a result can name the exact
// kernel it was measured on and anyone can get the same kernel again.
//
// Resolve asks apt which concrete kernel package (linux-image-<abi>-<flavour>)
// the linux-image-amd64 / linux-image-arm64 metapackage points to today; the
// returned Version belongs in the results. Fetch downloads that package with
// `apt-get download` and unpacks it with `dpkg -x` into a cache directory
// keyed by package and version. Kernel then answers the questions that the
// QEMU target needs to build an initramfs: whether a config option is built
// in or a module (Builtin), and which module files must be loaded, in order,
// for a filesystem or disk driver (ModuleClosure, which reads the `depends=`
// entries of the modules' .modinfo sections because Debian's package ships no
// modules.dep: depmod runs only when the package is installed).
//
// What this package must never do:
//   - install packages or change the host's apt/dpkg configuration (no
//     `apt-get install`, no `dpkg -i`, no `dpkg --add-architecture`): a kernel
//     is only unpacked into the cache;
//   - run a shell: every command is exec'ed with an explicit argument list;
//   - download from anywhere but the Debian mirrors configured for apt: the
//     only network access is through apt-get.
package kernel
