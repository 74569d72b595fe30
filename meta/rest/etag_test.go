package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta/rest"
)

func get(t *testing.T, url string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rsp.Body.Close() })
	return rsp
}

// TestLoadTableETag: a load answers with an ETag and config; the same tag
// in If-None-Match gets 304 until the table changes.
func TestLoadTableETag(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{TableConfig: map[string]string{"test.vended": "yes"}})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	c := f.client(t)
	tbl, err := c.CreateTable(ctx, table.Identifier{"app", "t"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	url := f.url + "/v1/namespaces/app/tables/t"
	rsp := get(t, url)
	tag := rsp.Header.Get("ETag")
	if rsp.StatusCode != http.StatusOK || tag == "" {
		t.Fatalf("load: status %d, ETag %q", rsp.StatusCode, tag)
	}
	var body struct {
		Loc    string            `json:"metadata-location"`
		Config map[string]string `json:"config"`
	}
	if err := json.NewDecoder(rsp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Loc != tbl.MetadataLocation() || body.Config["test.vended"] != "yes" {
		t.Errorf("load result = %+v", body)
	}
	if rsp := get(t, url, "If-None-Match", tag); rsp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the current tag: status %d, want 304", rsp.StatusCode)
	}
	if _, err := appendRows(ctx, t, tbl, []int64{1}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if rsp := get(t, url, "If-None-Match", tag); rsp.StatusCode != http.StatusOK {
		t.Errorf("If-None-Match with a stale tag: status %d, want 200", rsp.StatusCode)
	}
	var e struct {
		Error struct {
			Message, Type string
			Code          int
		}
	}
	rsp = get(t, f.url+"/v1/namespaces/app/tables/nope")
	if err := json.NewDecoder(rsp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if rsp.StatusCode != 404 || e.Error.Code != 404 || e.Error.Type != "NoSuchTableException" || e.Error.Message == "" {
		t.Errorf("missing table: status %d, error %+v", rsp.StatusCode, e.Error)
	}

	req, _ := http.NewRequest(http.MethodPut, f.url+"/v1/namespaces/app/tables/t", nil)
	put, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	put.Body.Close()
	if put.StatusCode != http.StatusMethodNotAllowed || put.Header.Get("Allow") == "" {
		t.Errorf("PUT on a table: status %d, Allow %q; want 405", put.StatusCode, put.Header.Get("Allow"))
	}
}
