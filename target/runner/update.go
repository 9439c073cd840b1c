package runner

import (
	"github.com/fsbench/fsbench/target/crash"
	"github.com/fsbench/fsbench/target/step"
)

func init() {
	register("update", step.Recipe{Schema: 1, Iterate: crash.Update, Finish: crash.UpdateFinish})
}
