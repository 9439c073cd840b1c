# The packages of this tree build the fsbench tree it lives in
# (SITE_METHOD = local), so that an image always gets the fsbench of the
# checkout next to its board files.
FSBENCH_TREE := $(realpath $(BR2_EXTERNAL_FSBENCH_PATH)/..)
FSBENCH_TREE_VERSION := $(shell git -C $(FSBENCH_TREE) describe --always --dirty 2>/dev/null || echo custom)

# A local package has no download step, and golang-package builds with
# GOPROXY=off and -mod=vendor. So the Go modules are vendored here, at
# download time ("make source", or before the first build when it was not
# run): into DL_DIR, once per go.mod and go.sum, and copied into each build
# directory. go mod vendor checks every module against go.sum.
FSBENCH_GO_SUM := $(shell cat $(FSBENCH_TREE)/go.mod $(FSBENCH_TREE)/go.sum 2>/dev/null | sha256sum | cut -c1-16)
FSBENCH_GO_VENDOR := $(DL_DIR)/fsbench/vendor-$(FSBENCH_GO_SUM)

include $(sort $(wildcard $(BR2_EXTERNAL_FSBENCH_PATH)/package/*/*.mk))

$(FSBENCH_GO_VENDOR)/modules.txt: | host-go
	@echo ">>> fsbench: vendoring Go modules into $(FSBENCH_GO_VENDOR)"
	rm -rf $(FSBENCH_GO_VENDOR) $(FSBENCH_GO_VENDOR).tmp
	mkdir -p $(dir $(FSBENCH_GO_VENDOR))
	cd $(FSBENCH_TREE) && $(HOST_FSBENCH_DL_ENV) $(GO_BIN) mod vendor -modcacherw -o $(FSBENCH_GO_VENDOR).tmp
	mv $(FSBENCH_GO_VENDOR).tmp $(FSBENCH_GO_VENDOR)
