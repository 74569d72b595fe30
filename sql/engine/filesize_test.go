package engine

import (
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
)

// TestTargetFileSizeOption checks WITH (target_file_size = …): sizes read
// as PostgreSQL reads memory settings, stored as Iceberg's property.
func TestTargetFileSizeOption(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // write.target-file-size-bytes
		code string
	}{
		{in: "256MB", want: "268435456"},
		{in: "1GB", want: "1073741824"},
		{in: "512kB", want: "524288"},
		{in: "1TB", want: "1099511627776"},
		{in: "1000", want: "1000"},
		{in: "64 MB", want: "67108864"},
		{in: "10B", want: "10"},
		{in: "256mb", code: pgerr.InvalidParameterValue}, // units are case-sensitive, as in PostgreSQL
		{in: "1KB", code: pgerr.InvalidParameterValue},
		{in: "big", code: pgerr.InvalidParameterValue},
		{in: "1.5GB", code: pgerr.InvalidParameterValue},
		{in: "0", code: pgerr.InvalidParameterValue},
		{in: "-1MB", code: pgerr.InvalidParameterValue},
		{in: "99999999999TB", code: pgerr.InvalidParameterValue},
	} {
		props := iceberg.Properties{}
		err := targetFileSizeOption(parse.Option{Key: "target_file_size", Value: c.in}, props)
		if c.code != "" {
			if pgerr.Code(err) != c.code {
				t.Errorf("%q: %v, want SQLSTATE %s", c.in, err, c.code)
			}
			continue
		}
		if err != nil || props[table.WriteTargetFileSizeBytesKey] != c.want {
			t.Errorf("%q: %v %v, want %s", c.in, props, err, c.want)
		}
	}
}
