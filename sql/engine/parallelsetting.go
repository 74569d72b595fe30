package engine

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/pgerr"
)

// The settings of parallel query (exec/build/parallel.go):
// max_parallel_workers_per_gather as PostgreSQL has it (0 or 1 runs every
// plan on one core; the default is the machine's cores), and Loam's own
// loam.parallel_min_rows, the smallest table a plan scans in parallel.
const parallelMinRowsSetting = build.ParallelMinRowsSetting

// defaultWorkers is max_parallel_workers_per_gather's default when set
// (Config.ParallelWorkers, the server's -max-parallel-workers); 0: the
// cores.
var defaultWorkers atomic.Int64

func defaultParallelWorkers() string {
	if n := defaultWorkers.Load(); n > 0 {
		return strconv.FormatInt(n, 10)
	}
	return strconv.Itoa(runtime.NumCPU())
}

// intSetting checks an integer setting's value against its range, with
// PostgreSQL's messages.
func intSetting(name, value string, lo, hi int64) (string, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
	}
	if n < lo || n > hi {
		return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter %q (%d .. %d)", n, name, lo, hi)
	}
	return strconv.FormatInt(n, 10), nil
}
