package meta

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/io/gocloud/blobfs"
	icebergs3 "github.com/apache/iceberg-go/io/gocloud/s3"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/loamdb/loam/pgerr"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// iceberg-go's s3 scheme builds a new AWS config, HTTP transport and
// client each time a table's file IO is asked for, which Loam does for
// every scan: three quarters of a small query's CPU went there, and no
// connection was ever reused. These schemes keep one bucket handle (and so
// one connection pool) per bucket and properties, and wrap it per call so
// each operation still runs under its caller's context.
var s3Schemes = []string{"s3", "s3a", "s3n"}

// S3Attempts is how many times a request to the bucket is tried, unless
// AWS_MAX_ATTEMPTS says otherwise.
const S3Attempts = 8

func init() {
	for _, scheme := range s3Schemes {
		icebergio.Unregister(scheme)
		icebergio.Register(scheme, openS3)
	}
}

var s3Buckets struct {
	sync.Mutex
	m map[string]*blob.Bucket
}

func openS3(ctx context.Context, parsed *url.URL, props map[string]string) (icebergio.IO, error) {
	b, err := s3Bucket(ctx, parsed.Host, props)
	if err != nil {
		return nil, err
	}
	return s3FS{blobfs.New(ctx, b, blobfs.DefaultObjectLocationExtractor(parsed.Host, s3Schemes...))}, nil
}

// s3FS is iceberg-go's bucket file IO with one change: a walk passes over
// a "directory" that is gone by the time it is listed. A listing can name
// a prefix whose last object is deleted before the walk descends into it
// (and SeaweedFS lists an emptied folder until it sweeps it), and
// iceberg-go's orphan removal would fail on it where a file system walk
// would simply not have seen it.
type s3FS struct{ *blobfs.FileIO }

func (f s3FS) WalkDir(root string, fn fs.WalkDirFunc) error {
	top := strings.TrimSuffix(root, "/")
	return f.FileIO.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil && errors.Is(err, fs.ErrNotExist) && strings.TrimSuffix(path, "/") != top {
			return nil
		}
		return fn(path, d, err)
	})
}

// Open opens a file for reading; errors reaching the bucket are 58030
// (io_error), as PostgreSQL reports a file it cannot read.
func (f s3FS) Open(name string) (icebergio.File, error) {
	file, err := f.FileIO.Open(name)
	if err != nil {
		return nil, ioError(name, err)
	}
	return s3File{file, name}, nil
}

// s3File reports its read errors as 58030.
type s3File struct {
	icebergio.File
	name string
}

func (f s3File) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	return n, ioError(f.name, err)
}

func (f s3File) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	return n, ioError(f.name, err)
}

// ioError gives err, from reading name in the bucket, SQLSTATE 58030
// (58P01 for a missing file), keeping it in the chain (fs.ErrNotExist
// stays visible). io.EOF and a
// statement's own cancellation or timeout pass as they are, so they keep
// their meaning (57014 for the latter).
func ioError(name string, err error) error {
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return pgerr.Wrap(pgerr.UndefinedFile, err, "could not open %q in the warehouse", name)
	}
	return pgerr.Wrap(pgerr.IOError, err, "could not read %q from the warehouse", name)
}

// S3ClientOf returns the S3 client behind an s3:// warehouse's file IO,
// for what iceberg-go's IO does not do (multipart uploads left open).
func S3ClientOf(fsys icebergio.IO) (*s3.Client, bool) {
	f, ok := fsys.(s3FS)
	var c *s3.Client
	if !ok || !f.Bucket.As(&c) {
		return nil, false
	}
	return c, true
}

// s3Bucket returns the shared handle of bucket for props.
func s3Bucket(ctx context.Context, bucket string, props map[string]string) (*blob.Bucket, error) {
	key := s3Key(bucket, props)
	s3Buckets.Lock()
	defer s3Buckets.Unlock()
	if b, ok := s3Buckets.m[key]; ok {
		return b, nil
	}
	// The handle outlives this call: build it under no caller's deadline.
	b, err := newS3Bucket(context.WithoutCancel(ctx), bucket, props)
	if err != nil {
		return nil, err
	}
	if s3Buckets.m == nil {
		s3Buckets.m = map[string]*blob.Bucket{}
	}
	s3Buckets.m[key] = b
	return b, nil
}

func s3Key(bucket string, props map[string]string) string {
	var sb strings.Builder
	sb.WriteString(bucket)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if strings.HasPrefix(k, "s3.") || strings.HasPrefix(k, "client.") || k == "token" {
			fmt.Fprintf(&sb, "\x00%s=%s", k, props[k])
		}
	}
	return sb.String()
}

// newS3Bucket opens bucket as iceberg-go's s3 scheme does: the same
// properties (region, static keys, proxy, connect timeout through
// ParseAWSConfig; endpoint, path-style addressing), the SDK's default
// credential chain otherwise.
func newS3Bucket(ctx context.Context, bucket string, props map[string]string) (*blob.Bucket, error) {
	cfg, err := icebergs3.ParseAWSConfig(ctx, props)
	if err != nil {
		return nil, fmt.Errorf("s3 bucket %s: %w", bucket, err)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConns = 256
			t.MaxIdleConnsPerHost = 256
			t.IdleConnTimeout = 90 * time.Second
		})
	}
	if os.Getenv("AWS_MAX_ATTEMPTS") == "" {
		// The SDK's default of 3 attempts gives up within a second or two
		// of throttling or a 5xx; 8 back off (with jitter) through a short
		// outage. A link commit that still fails is
		// tried again at the next interval.
		cfg.Retryer = func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = S3Attempts
				// Backoff doubles up to 5 s (the SDK's cap is 20 s): 8
				// attempts span about half a minute, so a query needing a
				// file while the store is down fails in that time rather
				// than after more than a minute.
				o.MaxBackoff = 5 * time.Second
				// The client-side retry quota would stop retrying a
				// busy server's requests just when backing off helps.
				o.RateLimiter = ratelimit.None
			})
		}
	}
	endpoint, ok := props[icebergio.S3EndpointURL]
	if !ok {
		endpoint = os.Getenv("AWS_S3_ENDPOINT")
	}
	pathStyle := endpoint != ""
	if v, ok := props[icebergio.S3ForceVirtualAddressing]; ok {
		if virtual, err := strconv.ParseBool(v); err == nil {
			pathStyle = !virtual
		}
	}
	client := s3.NewFromConfig(*cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = pathStyle
		o.DisableLogOutputChecksumValidationSkipped = true
	})
	b, err := s3blob.OpenBucketV2(ctx, client, bucket, nil)
	if err != nil {
		return nil, fmt.Errorf("s3 bucket %s: %w", bucket, err)
	}
	return b, nil
}
