package meta

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"strings"

	icebergio "github.com/apache/iceberg-go/io"
	// The s3:// scheme of iceberg-go's file IO (gocloud's S3 blob over the
	// AWS SDK), without the other clouds' SDKs.
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
)

// S3 says how to reach an s3:// warehouse. Credentials are not here: the
// AWS SDK reads them from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (or a
// profile, or an instance role), as every AWS tool does.
type S3 struct {
	Endpoint string // e.g. http://127.0.0.1:8333; "" for AWS itself
	Region   string
}

// WarehouseIO checks warehouseURL and returns the file IO properties it
// needs, as iceberg-go names them. Tables keep them too (the catalog hands
// them to every table it loads), so reads, the link and upkeep all reach
// the same bucket.
func WarehouseIO(warehouseURL string, s3 S3) (map[string]string, error) {
	u, err := url.Parse(warehouseURL)
	if err != nil {
		return nil, fmt.Errorf("warehouse %q: %w", warehouseURL, err)
	}
	switch u.Scheme {
	case "file":
		if s3 != (S3{}) {
			return nil, fmt.Errorf("warehouse %q: --s3-endpoint and --s3-region are for an s3:// warehouse", warehouseURL)
		}
		return nil, nil
	case "s3", "s3a":
	default:
		return nil, fmt.Errorf("warehouse %q: want file://DIR or s3://BUCKET/PREFIX", warehouseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("warehouse %q: no bucket", warehouseURL)
	}
	props := map[string]string{}
	if s3.Endpoint != "" {
		if e, err := url.Parse(s3.Endpoint); err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("--s3-endpoint %q: want http(s)://HOST[:PORT]", s3.Endpoint)
		}
		props[icebergio.S3EndpointURL] = strings.TrimSuffix(s3.Endpoint, "/")
		// S3-compatible servers on one host name (SeaweedFS, MinIO, a
		// gateway) address buckets by path, not by a subdomain.
		props["s3.path-style-access"] = "true"
		props[icebergio.S3ForceVirtualAddressing] = "false"
	}
	region := s3.Region
	if region == "" {
		region = os.Getenv("AWS_REGION")
	}
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		// The SDK refuses to sign without a region; S3-compatible servers
		// ignore it.
		region = "us-east-1"
	}
	props[icebergio.S3Region] = region
	return props, nil
}

// VendedS3 is what an outside reader needs besides the table metadata to
// read an s3:// warehouse: the IO properties plus the server's credentials,
// handed out in the REST catalog's load-table config. Nil for file://.
func VendedS3(ioProps map[string]string) map[string]string {
	if len(ioProps) == 0 {
		return nil
	}
	out := maps.Clone(ioProps)
	// Spark's and DuckDB's S3 readers take the region from client.region.
	if r := ioProps[icebergio.S3Region]; r != "" {
		out[icebergio.S3ClientRegion] = r
	}
	if k := os.Getenv("AWS_ACCESS_KEY_ID"); k != "" {
		out[icebergio.S3AccessKeyID] = k
		out[icebergio.S3SecretAccessKey] = os.Getenv("AWS_SECRET_ACCESS_KEY")
		if t := os.Getenv("AWS_SESSION_TOKEN"); t != "" {
			out[icebergio.S3SessionToken] = t
		}
	}
	return out
}
