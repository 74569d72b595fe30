package erasetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// ObjectsHolding lists the objects of an S3 bucket, as s3://bucket/key,
// whose key or contents hold b: FilesHolding for a warehouse on object
// storage. It reads every object in the bucket, not only those a table's
// metadata names or the warehouse's prefix holds, so a file a snapshot
// forgot, or one written anywhere else, is searched too.
func ObjectsHolding(ctx context.Context, c *s3.Client, bucket string, b []byte) ([]string, error) {
	var out []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list s3://%s: %w", bucket, err)
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			name := "s3://" + bucket + "/" + key
			if strings.Contains(key, string(b)) {
				out = append(out, name)
				continue
			}
			data, err := getObject(ctx, c, bucket, key)
			var gone *types.NoSuchKey
			if errors.As(err, &gone) {
				continue // another test's file, removed since the listing
			}
			if err != nil {
				return nil, err
			}
			found, err := holds(key, data, b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if found {
				out = append(out, name)
			}
		}
	}
	return out, nil
}

func getObject(ctx context.Context, c *s3.Client, bucket, key string) ([]byte, error) {
	r, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("get s3://%s/%s: %w", bucket, key, err)
	}
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}
