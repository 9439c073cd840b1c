################################################################################
#
# fsbench-runner
#
################################################################################

# Built from the fsbench tree around this BR2_EXTERNAL, its Go modules
# vendored at download time by external.mk.
FSBENCH_RUNNER_VERSION = $(FSBENCH_TREE_VERSION)
FSBENCH_RUNNER_SITE = $(FSBENCH_TREE)
FSBENCH_RUNNER_SITE_METHOD = local
FSBENCH_RUNNER_GOMOD = github.com/fsbench/fsbench
FSBENCH_RUNNER_BUILD_TARGETS = cmd/fsbench-runner
# Static and free of cgo, as fsbench build expects of the runner it
# copies into images: it runs before anything else is known to work.
FSBENCH_RUNNER_GO_ENV = CGO_ENABLED=0
FSBENCH_RUNNER_LDFLAGS = -X github.com/fsbench/fsbench/target/runner.Version=$(FSBENCH_RUNNER_VERSION)
FSBENCH_RUNNER_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = \
	--exclude=/bin --exclude=/out --exclude=/vendor

define FSBENCH_RUNNER_COPY_VENDOR
	rm -rf $(@D)/vendor
	cp -a $(FSBENCH_GO_VENDOR) $(@D)/vendor
endef
FSBENCH_RUNNER_POST_RSYNC_HOOKS += FSBENCH_RUNNER_COPY_VENDOR

$(eval $(golang-package))

$(FSBENCH_RUNNER_TARGET_RSYNC): $(FSBENCH_GO_VENDOR)/modules.txt
fsbench-runner-source: $(FSBENCH_GO_VENDOR)/modules.txt
