SUMMARY = "fsbench target runner"
DESCRIPTION = "The target side of fsbench: a static binary that runs the test \
plan fsbench build puts into the image on the board's first boots, and \
reports its results on the serial console."

require fsbench.inc

GO_INSTALL = "${GO_IMPORT}/cmd/fsbench-runner"
GO_EXTRA_LDFLAGS = "-X ${GO_IMPORT}/target/runner.Version=${PV}"

# The boards fsbench builds runners for; goarch.bbclass maps TARGET_ARCH to
# GOARCH (x86_64 amd64, aarch64 arm64, arm arm with GOARM from the tune,
# riscv64 riscv64).
COMPATIBLE_HOST = "(x86_64|aarch64|arm|riscv64).*-linux.*"

# Static, without cgo, the Go runtime as a shared library, or PIE: fsbench
# build copies this binary into images and it runs as the initramfs /init
# too, before any library is known to be there.
export CGO_ENABLED = "0"
GO_LINKSHARED = ""
GO_RPATH = ""
GO_RPATH_LINK = ""
GO_LINUXLOADER = ""
GOBUILDFLAGS:remove = "-buildmode=pie"

do_install() {
    install -D -m 0755 ${B}/${GO_BUILD_BINDIR}/fsbench-runner ${D}${bindir}/fsbench-runner
}
