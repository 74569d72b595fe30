package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The tables of an LLM-observability product (Langfuse's data model, as
// regress/obs ports it to PostgreSQL): traces hold observations (spans,
// generations with a model, tokens and cost, events) whose attributes are
// jsonb, and scores evaluate a trace or one of its observations.
var ddl = []string{
	`CREATE TABLE traces (id text NOT NULL, project_id text NOT NULL, name text, user_id text, session_id text,
  "timestamp" timestamptz NOT NULL, release text, metadata jsonb)`,
	`CREATE TABLE observations (id text NOT NULL, trace_id text NOT NULL, project_id text NOT NULL, type text NOT NULL,
  name text, start_time timestamptz NOT NULL, end_time timestamptz, model text, level text NOT NULL,
  attributes jsonb NOT NULL, prompt_tokens integer NOT NULL, completion_tokens integer NOT NULL, total_cost numeric(18,8))`,
	`CREATE TABLE scores (id text NOT NULL, trace_id text NOT NULL, observation_id text, name text NOT NULL,
  value double precision, source text NOT NULL, "timestamp" timestamptz NOT NULL)`,
}

// pgIndexes are what a user of PostgreSQL adds for these dashboards: the
// keys, the joins' foreign keys, the time ranges per project, and a GIN
// index for jsonb containment.
var pgIndexes = []string{
	`ALTER TABLE traces ADD PRIMARY KEY (id)`,
	`ALTER TABLE observations ADD PRIMARY KEY (id)`,
	`ALTER TABLE scores ADD PRIMARY KEY (id)`,
	`CREATE INDEX ON traces (project_id, "timestamp")`,
	`CREATE INDEX ON traces (user_id)`,
	`CREATE INDEX ON observations (trace_id)`,
	`CREATE INDEX ON observations (project_id, start_time)`,
	`CREATE INDEX ON observations USING gin (attributes jsonb_path_ops)`,
	`CREATE INDEX ON scores (trace_id)`,
	`CREATE INDEX ON scores (name, value)`,
}

var (
	start      = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	models     = []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "claude-3-haiku", "llama-3.1-70b", "mistral-large"}
	traceNames = []string{"chat", "summarize", "rag-query", "agent-run", "classify", "extract"}
	obsNames   = []string{"llm-call", "retrieve", "embed", "tool", "rerank"}
	tools      = []string{"search", "calculator", "weather", "sql", "browser"}
	scoreNames = []string{"accuracy", "helpfulness", "toxicity", "user-feedback", "faithfulness"}
	envs       = []string{"prod", "prod", "prod", "staging", "dev"}
	regions    = []string{"us-east", "eu-west", "ap-south"}
)

// tables renders traces traces with about 6 observations and 2 scores
// each as COPY text, deterministically from seed.
func tables(traces int, seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, 15))
	var tr, ob, sc strings.Builder
	nObs, nScores := 0, 0
	for i := range traces {
		project := fmt.Sprintf("proj-%d", zipfish(r, 20))
		at := start.Add(time.Duration(r.Int64N(30*24*3600*1000)) * time.Millisecond)
		user := fmt.Sprintf("user-%d", r.IntN(2000))
		fmt.Fprintf(&tr, "tr-%07d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i, project, pick(r, traceNames), user,
			orNull(r, 3, fmt.Sprintf("sess-%d", r.IntN(traces/4+1))), ts(at), fmt.Sprintf("v1.%d", r.IntN(8)),
			fmt.Sprintf(`{"env": "%s", "region": "%s", "customer_tier": "%s"}`, pick(r, envs), pick(r, regions), pick(r, []string{"free", "pro", "enterprise"})))
		n := 1 + r.IntN(11)
		first := nObs
		for j := range n {
			typ := pick(r, []string{"GENERATION", "GENERATION", "SPAN", "EVENT"})
			st := at.Add(time.Duration(j*r.IntN(3000)) * time.Millisecond)
			lat := 50 + r.IntN(8000)
			model, pt, ct, cost := `\N`, 0, 0, `\N`
			attrs := fmt.Sprintf(`{"env": "%s", "latency_ms": %d, "service": {"name": "%s", "version": "1.%d"}`, pick(r, envs), lat, pick(r, []string{"api", "worker", "indexer"}), r.IntN(5))
			if typ == "GENERATION" {
				model = pick(r, models)
				pt, ct = r.IntN(4000), r.IntN(1200)
				cost = fmt.Sprintf("%.8f", float64(pt)*0.0000025+float64(ct)*0.00001)
				attrs += fmt.Sprintf(`, "llm": {"model_name": "%s", "temperature": %d.%d, "streaming": %t}`, model, r.IntN(2), r.IntN(10), r.IntN(2) == 0)
			}
			if r.IntN(5) == 0 {
				attrs += fmt.Sprintf(`, "tool": {"name": "%s", "calls": %d}`, pick(r, tools), 1+r.IntN(4))
			}
			level := pick(r, []string{"DEFAULT", "DEFAULT", "DEFAULT", "DEFAULT", "DEBUG", "WARNING", "ERROR"})
			fmt.Fprintf(&ob, "obs-%08d\ttr-%07d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s}\t%d\t%d\t%s\n", nObs, i, project, typ, pick(r, obsNames),
				ts(st), ts(st.Add(time.Duration(lat)*time.Millisecond)), model, level, attrs, pt, ct, cost)
			nObs++
		}
		for range r.IntN(5) {
			name := pick(r, scoreNames)
			value := fmt.Sprintf("%.3f", r.Float64())
			if name == "user-feedback" {
				value = fmt.Sprint(r.IntN(2))
			}
			obs := `\N`
			if r.IntN(2) == 0 {
				obs = fmt.Sprintf("obs-%08d", first+r.IntN(n))
			}
			fmt.Fprintf(&sc, "sc-%08d\ttr-%07d\t%s\t%s\t%s\t%s\t%s\n", nScores, i, obs, name, value,
				pick(r, []string{"API", "EVAL", "ANNOTATION"}), ts(at.Add(time.Duration(r.IntN(7200))*time.Second)))
			nScores++
		}
	}
	return map[string]string{"traces": tr.String(), "observations": ob.String(), "scores": sc.String()}
}

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// zipfish draws 0..n-1 with the low numbers more often (a few big projects).
func zipfish(r *rand.Rand, n int) int { return int(float64(n) * r.Float64() * r.Float64()) }

func orNull(r *rand.Rand, n int, v string) string {
	if r.IntN(n) == 0 {
		return `\N`
	}
	return v
}

func ts(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") + "+00" }
