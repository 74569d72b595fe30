package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// TestWindowErrors checks the SQLSTATEs and positions PostgreSQL 15 gives
// misplaced and malformed window calls.
func TestWindowErrors(t *testing.T) {
	_, s := loaded(t)
	cases := []struct {
		query string
		code  string
		at    string // the text the position points at; "" for none
	}{
		{"SELECT tenant FROM llm_calls WHERE row_number() OVER () > 1", pgerr.WindowingError, "row_number"},
		{"SELECT tenant FROM llm_calls GROUP BY rank() OVER ()", pgerr.WindowingError, "rank"},
		{"SELECT tenant FROM llm_calls GROUP BY tenant HAVING rank() OVER () > 1", pgerr.WindowingError, "rank"},
		{"SELECT sum(row_number() OVER ()) FROM llm_calls", pgerr.GroupingError, "row_number"},
		{"SELECT sum(rank() OVER ()) OVER () FROM llm_calls", pgerr.WindowingError, "rank"},
		{"SELECT rank() OVER (ORDER BY row_number() OVER ()) FROM llm_calls", pgerr.WindowingError, "row_number"},
		{"SELECT ntile(0) OVER () FROM llm_calls", pgerr.InvalidArgumentForNtile, ""},
		{"SELECT nth_value(tenant, -1) OVER () FROM llm_calls", pgerr.InvalidArgumentForNthValue, ""},
		{"SELECT sum(prompt_tokens) OVER (ROWS -1 PRECEDING) FROM llm_calls", pgerr.InvalidPrecedingOrFollowingSize, ""},
		{"SELECT sum(prompt_tokens) OVER (ROWS BETWEEN CURRENT ROW AND NULL FOLLOWING) FROM llm_calls", pgerr.NullValueNotAllowed, ""},
		{"SELECT sum(prompt_tokens) OVER (ORDER BY ts, tenant RANGE 2 PRECEDING) FROM llm_calls", pgerr.WindowingError, "(ORDER"},
		{"SELECT sum(prompt_tokens) OVER (GROUPS 1 PRECEDING) FROM llm_calls", pgerr.WindowingError, "(GROUPS"},
		{"SELECT sum(prompt_tokens) OVER (ORDER BY tenant RANGE 1 PRECEDING) FROM llm_calls", pgerr.FeatureNotSupported, "1 PRECEDING"},
		{"SELECT sum(prompt_tokens) OVER (ORDER BY prompt_tokens RANGE -1 PRECEDING) FROM llm_calls", pgerr.InvalidPrecedingOrFollowingSize, ""},
		{"SELECT abs(prompt_tokens) OVER () FROM llm_calls", pgerr.WrongObjectType, "abs"},
		{"SELECT nope(prompt_tokens) OVER () FROM llm_calls", pgerr.UndefinedFunction, "nope"},
		{"SELECT rank(prompt_tokens) OVER () FROM llm_calls", pgerr.WrongObjectType, "rank"},
		{"SELECT row_number(1) OVER () FROM llm_calls", pgerr.UndefinedFunction, "row_number"},
		{"SELECT row_number() OVER w FROM llm_calls", pgerr.UndefinedObject, "w FROM"},
		{"SELECT 1 FROM llm_calls WINDOW w AS (), w AS (ORDER BY ts)", pgerr.WindowingError, "(ORDER"},
		{"SELECT count(*) OVER (w PARTITION BY model) FROM llm_calls WINDOW w AS (ORDER BY ts)", pgerr.WindowingError, "(w"},
		{"SELECT count(DISTINCT model) OVER () FROM llm_calls", pgerr.FeatureNotSupported, "count"},
		{"SELECT tenant, model, rank() OVER (ORDER BY model) FROM llm_calls GROUP BY tenant", pgerr.GroupingError, "model,"},
		{"SELECT sum(model) OVER () FROM llm_calls", pgerr.UndefinedFunction, "sum"},
		{"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY cost_usd) OVER () FROM llm_calls", pgerr.FeatureNotSupported, "percentile_cont"},
		{"SELECT string_agg(model, ',' ORDER BY ts) OVER () FROM llm_calls", pgerr.FeatureNotSupported, "string_agg"},
		{"SELECT count(*) FILTER (WHERE prompt_tokens) OVER () FROM llm_calls", pgerr.DatatypeMismatch, "prompt_tokens) OVER"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			_, err := runSQL(context.Background(), s, tc.query)
			if err == nil {
				t.Fatalf("no error, want %s", tc.code)
			}
			pe := pgerr.From(err)
			if pe.Code != tc.code {
				t.Fatalf("SQLSTATE %s (%v), want %s", pe.Code, err, tc.code)
			}
			want := 0
			if tc.at != "" {
				want = strings.Index(tc.query, tc.at) + 1
			}
			if pe.Position != want {
				t.Errorf("position %d, want %d (at %q)", pe.Position, want, tc.at)
			}
		})
	}
}

// TestWindowResultTypes checks the result types and names of window calls.
func TestWindowResultTypes(t *testing.T) {
	_, s := loaded(t)
	r := mustRun(t, s, `SELECT row_number() OVER (), rank() OVER (), percent_rank() OVER (), cume_dist() OVER (),
		ntile(2) OVER (), lag(tenant) OVER (), first_value(cost_usd) OVER (), sum(prompt_tokens) OVER (),
		avg(prompt_tokens) OVER (), count(*) OVER (), max(ts) OVER () AS last FROM llm_calls`)
	want := []struct {
		name string
		t    types.Kind
	}{
		{"row_number", types.Int8}, {"rank", types.Int8}, {"percent_rank", types.Float8}, {"cume_dist", types.Float8},
		{"ntile", types.Int4}, {"lag", types.Text}, {"first_value", types.Float8}, {"sum", types.Int8},
		{"avg", types.Numeric}, {"count", types.Int8}, {"last", types.TimestampTZ},
	}
	if len(r.cols) != len(want) {
		t.Fatalf("%d columns, want %d", len(r.cols), len(want))
	}
	for i, w := range want {
		if r.cols[i].Name != w.name || r.cols[i].Type.Kind != w.t {
			t.Errorf("column %d: %s %s, want %s %v", i, r.cols[i].Name, r.cols[i].Type, w.name, w.t)
		}
	}
}
