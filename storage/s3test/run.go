package s3test

import "os"

// Run starts a server of its own with its data under dir, for programs
// rather than tests (the S3 benchmark, bench/cmd/s3bench); Stop ends it.
// It puts the test identity in the process's AWS_* environment, which the
// Loam servers it starts inherit.
func Run(dir string) (*Server, error) {
	SetCredentials()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return start(dir)
}
