SUMMARY = "fsbench: disk images that test their own storage (build host tool)"
DESCRIPTION = "fsbench builds a board's disk images from one HCL spec with the \
real mkfs tools, and bakes the target runner and the compiled test plan into \
the root filesystem. The fsbench-image class runs it on an image's rootfs."

require fsbench.inc

GO_INSTALL = "${GO_IMPORT}/cmd/fsbench"
GO_EXTRA_LDFLAGS = "-X ${GO_IMPORT}/cmd/fsbench/cli.Version=${PV}"

inherit native

# Only the command: go.bbclass would also install the module's sources.
do_install() {
    install -D -m 0755 ${B}/${GO_BUILD_BINDIR}/fsbench ${D}${bindir}/fsbench
}
