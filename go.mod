module github.com/fsbench/fsbench

go 1.25.0

require (
	github.com/diskfs/go-diskfs v1.9.4
	github.com/hashicorp/hcl/v2 v2.25.0
	github.com/klauspost/compress v1.18.5
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sirupsen/logrus v1.10.2
	github.com/ulikunitz/xz v0.5.15
	github.com/zclconf/go-cty v1.20.0
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/sys v0.47.0
)

require (
	github.com/agext/levenshtein v1.2.1 // indirect
	github.com/apparentlymart/go-textseg/v15 v15.0.0 // indirect
	github.com/apparentlymart/go-textseg/v17 v17.0.1 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mitchellh/go-wordwrap v1.0.1 // indirect
	golang.org/x/mod v0.29.0 // indirect
	golang.org/x/sync v0.18.0 // indirect
	golang.org/x/text v0.31.0 // indirect
	golang.org/x/tools v0.38.0 // indirect
)
