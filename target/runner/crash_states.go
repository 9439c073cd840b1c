package runner

import (
	"github.com/fsbench/fsbench/target/crash"
	"github.com/fsbench/fsbench/target/step"
)

func init() {
	register("crash_states", step.Recipe{Schema: 1, Iterate: crash.States, Finish: crash.StatesFinish})
}
