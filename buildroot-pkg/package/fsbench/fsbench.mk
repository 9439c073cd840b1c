################################################################################
#
# fsbench
#
################################################################################

# Built from the fsbench tree around this BR2_EXTERNAL, its Go modules
# vendored at download time by external.mk.
FSBENCH_VERSION = $(FSBENCH_TREE_VERSION)
FSBENCH_SITE = $(FSBENCH_TREE)
FSBENCH_SITE_METHOD = local
FSBENCH_GOMOD = github.com/fsbench/fsbench
# The host variant does not inherit FSBENCH_GOMOD.
HOST_FSBENCH_GOMOD = $(FSBENCH_GOMOD)
FSBENCH_BUILD_TARGETS = cmd/fsbench
HOST_FSBENCH_BUILD_TARGETS = cmd/fsbench
FSBENCH_LDFLAGS = -X github.com/fsbench/fsbench/cmd/fsbench/cli.Version=$(FSBENCH_VERSION)
HOST_FSBENCH_LDFLAGS = $(FSBENCH_LDFLAGS)
FSBENCH_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = \
	--exclude=/bin --exclude=/out --exclude=/vendor
HOST_FSBENCH_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = $(FSBENCH_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS)

define FSBENCH_COPY_VENDOR
	rm -rf $(@D)/vendor
	cp -a $(FSBENCH_GO_VENDOR) $(@D)/vendor
endef
FSBENCH_POST_RSYNC_HOOKS += FSBENCH_COPY_VENDOR
HOST_FSBENCH_POST_RSYNC_HOOKS += FSBENCH_COPY_VENDOR

$(eval $(golang-package))
$(eval $(host-golang-package))

$(FSBENCH_TARGET_RSYNC) $(HOST_FSBENCH_TARGET_RSYNC): $(FSBENCH_GO_VENDOR)/modules.txt
fsbench-source host-fsbench-source: $(FSBENCH_GO_VENDOR)/modules.txt
