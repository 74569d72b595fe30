package maint

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/loamdb/loam/meta"
)

// abortStaleUploads aborts the multipart uploads under an s3:// table's
// location begun before cutoff. An upload cut short (a crash, a lost
// connection, a cancelled statement) leaves parts that are no object, so
// no listing of files finds them, yet the bucket keeps and bills them;
// orphan removal ends them as it removes unreferenced files. Other
// warehouses have nothing to do.
func abortStaleUploads(ctx context.Context, t *table.Table, cutoff time.Time) (int, error) {
	u, err := url.Parse(t.Location())
	if err != nil || (u.Scheme != "s3" && u.Scheme != "s3a" && u.Scheme != "s3n") {
		return 0, nil
	}
	fsys, err := t.FS(ctx)
	if err != nil {
		return 0, err
	}
	client, ok := meta.S3ClientOf(fsys)
	if !ok {
		return 0, nil
	}
	prefix := strings.TrimPrefix(u.Path, "/")
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(u.Host), Prefix: aws.String(prefix)}
	aborted := 0
	for {
		out, err := client.ListMultipartUploads(ctx, in)
		if err != nil {
			return aborted, fmt.Errorf("list multipart uploads under %s: %w", t.Location(), err)
		}
		for _, up := range out.Uploads {
			if up.Initiated != nil && !up.Initiated.Before(cutoff) {
				continue
			}
			_, err := client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket: aws.String(u.Host), Key: up.Key, UploadId: up.UploadId})
			if err != nil {
				return aborted, fmt.Errorf("abort the upload of %s: %w", aws.ToString(up.Key), err)
			}
			aborted++
		}
		if !aws.ToBool(out.IsTruncated) {
			return aborted, nil
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
}
