package meta_test

import (
	"errors"
	"testing"

	"github.com/loamdb/loam/meta"
)

func TestExternalWriter(t *testing.T) {
	loams := map[string]string{meta.LoamTypesProperty: "{}"}
	failed := errors.New("metastore down")
	for _, c := range []struct {
		name    string
		ts      meta.TableSettings
		err     error
		props   map[string]string
		want    bool
		wantErr error
	}{
		{"loam by default", meta.TableSettings{}, nil, loams, false, nil},
		{"loam named", meta.TableSettings{Writer: meta.WriterLoam}, nil, loams, false, nil},
		{"external named", meta.TableSettings{Writer: meta.WriterExternal}, nil, loams, true, nil},
		{"created outside: no row, no Loam property", meta.TableSettings{}, meta.ErrNotFound, nil, true, nil},
		{"Loam's table without its row", meta.TableSettings{}, meta.ErrNotFound, loams, false, nil},
		{"metastore error", meta.TableSettings{}, failed, nil, false, failed},
	} {
		got, err := meta.ExternalWriter(c.ts, c.err, c.props)
		if got != c.want || !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
			t.Errorf("%s: got %v, %v; want %v, %v", c.name, got, err, c.want, c.wantErr)
		}
	}
}
