package runner

// Version is the runner's version, set at link time with
// -ldflags "-X github.com/fsbench/fsbench/target/runner.Version=...".
var Version = "dev"
