package engine_test

import (
	"bytes"
	"runtime"
)

// queryGoroutines counts the process's goroutines but those of HTTP
// connections kept for reuse: with the warehouse on S3 a query may open
// one more pooled connection to the server (a read and a write loop), which
// is the pool's, not a worker outliving its query.
func queryGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if len(g) > 0 && !bytes.Contains(g, []byte("net/http.(*persistConn)")) {
			n++
		}
	}
	return n
}
