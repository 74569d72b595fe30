package obs

import (
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// schema is the tables of the open-source LLM-observability products as a
// user porting them to PostgreSQL writes them:
//
//   - projects, traces, observations, scores: Langfuse's data model (a
//     trace holds observations: spans, generations with model, usage and
//     costs, events; scores are evaluations of a trace or observation).
//   - request, response: Helicone's request/response log (properties is
//     the Helicone-Property-* headers as jsonb).
//   - spans: OpenLLMetry's OpenTelemetry spans (gen_ai.* attributes).
//   - eval_results: an evaluation run's per-item results.
//
// Durations are stored as numbers or as start/end pairs: an interval
// column is not something Loam stores (docs/compatibility.md).
const schema = `
CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL,
  org_id text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE TABLE traces (
  id text PRIMARY KEY,
  project_id text NOT NULL,
  name text,
  user_id text,
  session_id text,
  "timestamp" timestamptz NOT NULL,
  release text,
  version text,
  tags text[] NOT NULL DEFAULT '{}',
  metadata jsonb,
  input jsonb,
  output jsonb,
  public boolean NOT NULL DEFAULT false,
  bookmarked boolean NOT NULL DEFAULT false
);
CREATE TABLE observations (
  id text PRIMARY KEY,
  trace_id text,
  project_id text NOT NULL,
  type text NOT NULL,
  name text,
  parent_observation_id text,
  start_time timestamptz NOT NULL,
  end_time timestamptz,
  completion_start_time timestamptz,
  model text,
  level text NOT NULL DEFAULT 'DEFAULT',
  status_message text,
  model_parameters jsonb,
  metadata jsonb,
  usage jsonb,
  output jsonb,
  prompt_tokens integer NOT NULL DEFAULT 0,
  completion_tokens integer NOT NULL DEFAULT 0,
  total_tokens integer NOT NULL DEFAULT 0,
  input_cost numeric(18,8),
  output_cost numeric(18,8),
  total_cost numeric(18,8)
);
CREATE TABLE scores (
  id text PRIMARY KEY,
  project_id text NOT NULL,
  trace_id text NOT NULL,
  observation_id text,
  name text NOT NULL,
  value double precision,
  string_value text,
  data_type text NOT NULL,
  source text NOT NULL,
  comment text,
  "timestamp" timestamptz NOT NULL
);
CREATE TABLE request (
  id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  org_id text NOT NULL,
  user_id text,
  path text NOT NULL,
  provider text NOT NULL,
  model text,
  body jsonb,
  properties jsonb NOT NULL DEFAULT '{}'
);
CREATE TABLE response (
  id uuid PRIMARY KEY,
  request uuid NOT NULL,
  created_at timestamptz NOT NULL,
  status integer NOT NULL,
  body jsonb,
  delay_ms integer,
  prompt_tokens integer,
  completion_tokens integer,
  model text,
  cost_usd double precision
);
CREATE TABLE spans (
  trace_id text NOT NULL,
  span_id text NOT NULL,
  parent_span_id text,
  name text NOT NULL,
  kind text NOT NULL,
  service_name text NOT NULL,
  start_time timestamptz NOT NULL,
  end_time timestamptz NOT NULL,
  duration_ns bigint NOT NULL,
  status_code text NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}',
  events jsonb,
  PRIMARY KEY (trace_id, span_id)
);
CREATE TABLE eval_results (
  id bigserial PRIMARY KEY,
  run_id text NOT NULL,
  dataset text NOT NULL,
  item_id text NOT NULL,
  metric text NOT NULL,
  score double precision,
  passed boolean,
  latency_ms integer,
  model text NOT NULL,
  created_at timestamptz NOT NULL,
  details jsonb
);
CREATE TABLE annotations (
  id bigserial PRIMARY KEY,
  trace_id text NOT NULL,
  author text NOT NULL,
  note text,
  created_at timestamptz NOT NULL
)`

// base is the start of the generated week.
var base = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

var (
	models    = []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "llama-3.1-70b", ""}
	envs      = []string{"prod", "staging", "dev"}
	tagPool   = []string{"prod", "beta", "rag", "agent", "eval", "x"}
	traceName = []string{"chat", "summarize", "rag-query", "agent-run", ""}
	tools     = []string{"search", "calculator", "weather", "sql"}
	scoreName = []string{"accuracy", "helpfulness", "toxicity", "user-feedback"}
)

// gen builds the rows as INSERT statements, the same text for both
// servers. It is deterministic: math/rand with a fixed seed.
type gen struct {
	r     *rand.Rand
	stmts []string
}

func (g *gen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

// ts is a time in the week; every fifth falls on a whole minute, so that
// timestamps repeat.
func (g *gen) ts() time.Time {
	s := g.r.Intn(7 * 24 * 3600)
	if g.r.Intn(5) == 0 {
		s -= s % 60
	}
	return base.Add(time.Duration(s)*time.Second + time.Duration(g.r.Intn(1000))*time.Millisecond)
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func tsLit(t time.Time) string { return "'" + t.Format("2006-01-02 15:04:05.000") + "+00'" }

// maybe returns NULL one time in n.
func (g *gen) maybe(n int, v string) string {
	if g.r.Intn(n) == 0 {
		return "NULL"
	}
	return v
}

// insert appends INSERT statements of rows, 200 rows each.
func (g *gen) insert(table string, rows []string) {
	for len(rows) > 0 {
		n := min(200, len(rows))
		g.stmts = append(g.stmts, "INSERT INTO "+table+" VALUES\n("+strings.Join(rows[:n], "),\n(")+")")
		rows = rows[n:]
	}
}

func (g *gen) metadata() string {
	switch g.r.Intn(6) {
	case 0:
		return "NULL"
	case 1:
		return "'{}'"
	}
	m := fmt.Sprintf(`{"env": "%s", "region": "%s"`, g.pick(envs), g.pick([]string{"us", "eu", "ap"}))
	if g.r.Intn(3) == 0 {
		m += fmt.Sprintf(`, "customer_tier": "%s"`, g.pick([]string{"free", "pro", "enterprise"}))
	}
	if g.r.Intn(4) == 0 {
		m += fmt.Sprintf(`, "retries": %d`, g.r.Intn(4))
	}
	return lit(m + "}")
}

func (g *gen) tags() string {
	var ts []string
	for _, t := range tagPool {
		if g.r.Intn(4) == 0 {
			ts = append(ts, t)
		}
	}
	switch g.r.Intn(40) {
	case 0:
		ts = append(ts, "NULL")
	case 1:
		ts = append(ts, `""`)
	}
	return "'{" + strings.Join(ts, ",") + "}'"
}

// toolCalls is an OpenAI-style list of tool calls, or NULL.
func (g *gen) toolCalls() string {
	n := g.r.Intn(4)
	if n == 0 {
		return "NULL"
	}
	var cs []string
	for i := 0; i < n; i++ {
		cs = append(cs, fmt.Sprintf(`{"id": "call_%d", "type": "function", "function": {"name": "%s", "arguments": "{\"q\": %d}"}, "tokens": %d}`,
			g.r.Intn(1000), g.pick(tools), g.r.Intn(50), g.r.Intn(200)))
	}
	return lit(`{"role": "assistant", "tool_calls": [` + strings.Join(cs, ", ") + `]}`)
}

// data is every INSERT, in load order.
func data() []string {
	g := &gen{r: rand.New(rand.NewSource(11))}
	var rows []string
	for i := 0; i < 3; i++ {
		rows = append(rows, fmt.Sprintf("'proj-%d', 'Project %d', 'org-%d', %s", i, i, i%2, tsLit(base.AddDate(0, -i-1, 0))))
	}
	g.insert("projects", rows)

	const nTraces = 800
	type trace struct {
		id, project string
		at          time.Time
	}
	traces := make([]trace, nTraces)
	rows = nil
	for i := range traces {
		tr := trace{id: fmt.Sprintf("tr-%04d", i), project: fmt.Sprintf("proj-%d", g.r.Intn(3)), at: g.ts()}
		traces[i] = tr
		user := g.maybe(8, lit(fmt.Sprintf("user-%d", g.r.Intn(40))))
		if g.r.Intn(20) == 0 {
			user = "''"
		}
		session := g.maybe(4, lit(fmt.Sprintf("sess-%d", g.r.Intn(120))))
		rows = append(rows, fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %t, %t",
			lit(tr.id), lit(tr.project), g.maybe(10, lit(g.pick(traceName))), user, session, tsLit(tr.at),
			g.maybe(3, lit(fmt.Sprintf("v1.%d", g.r.Intn(4)))), g.maybe(2, "'2'"), g.tags(), g.metadata(),
			g.maybe(5, lit(fmt.Sprintf(`{"messages": [{"role": "user", "content": "q%d"}]}`, i))),
			g.maybe(5, lit(fmt.Sprintf(`{"answer": "a%d", "confidence": %d.%d}`, i, g.r.Intn(2), g.r.Intn(100)))),
			g.r.Intn(10) == 0, g.r.Intn(15) == 0))
	}
	g.insert("traces", rows)

	rows = nil
	nObs := 0
	for _, tr := range traces {
		n := g.r.Intn(8)
		parent := "NULL"
		for j := 0; j < n; j++ {
			id := fmt.Sprintf("obs-%05d", nObs)
			nObs++
			typ := g.pick([]string{"GENERATION", "GENERATION", "SPAN", "EVENT"})
			start := tr.at.Add(time.Duration(g.r.Intn(30000)) * time.Millisecond)
			end := g.maybe(12, tsLit(start.Add(time.Duration(g.r.Intn(20000))*time.Millisecond)))
			first := g.maybe(3, tsLit(start.Add(time.Duration(g.r.Intn(900))*time.Millisecond)))
			model, usage, toolOut := "NULL", "NULL", "NULL"
			pt, ct := 0, 0
			cost := [3]string{"NULL", "NULL", "NULL"}
			if typ == "GENERATION" {
				model = g.maybe(15, lit(g.pick(models)))
				pt, ct = g.r.Intn(4000), g.r.Intn(1200)
				usage = lit(fmt.Sprintf(`{"input": %d, "output": %d, "total": %d, "unit": "TOKENS"}`, pt, ct, pt+ct))
				if g.r.Intn(10) == 0 {
					usage = lit(fmt.Sprintf(`{"input": %d, "output": %d}`, pt, ct))
				}
				in, out := float64(pt)*0.0000025, float64(ct)*0.00001
				if g.r.Intn(9) != 0 {
					cost = [3]string{fmt.Sprintf("%.8f", in), fmt.Sprintf("%.8f", out), fmt.Sprintf("%.8f", in+out)}
				}
				toolOut = g.toolCalls()
			}
			level := g.pick([]string{"DEFAULT", "DEFAULT", "DEFAULT", "DEBUG", "WARNING", "ERROR"})
			status := "NULL"
			if level == "ERROR" {
				status = lit(g.pick([]string{"rate limited", "timeout", "", "context length exceeded"}))
			}
			traceID := lit(tr.id)
			if g.r.Intn(40) == 0 {
				traceID = "NULL"
			}
			params := g.maybe(3, lit(fmt.Sprintf(`{"temperature": %d.%d, "max_tokens": %d}`, g.r.Intn(2), g.r.Intn(10), 256*(1+g.r.Intn(4)))))
			rows = append(rows, fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %d, %d, %s, %s, %s",
				lit(id), traceID, lit(tr.project), lit(typ), g.maybe(10, lit(g.pick([]string{"llm-call", "retrieve", "embed", "tool", "rerank"}))),
				parent, tsLit(start), end, first, model, lit(level), status, params, g.metadata(), usage, toolOut,
				pt, ct, pt+ct, cost[0], cost[1], cost[2]))
			if j == 0 {
				parent = lit(id)
			}
		}
	}
	g.insert("observations", rows)

	rows = nil
	for i := 0; i < 1200; i++ {
		tr := traces[g.r.Intn(nTraces)]
		name := g.pick(scoreName)
		value, sv, dt := fmt.Sprintf("%d.%02d", g.r.Intn(2), g.r.Intn(100)), "NULL", "NUMERIC"
		switch {
		case name == "user-feedback":
			v := g.r.Intn(2)
			value, sv, dt = fmt.Sprint(v), lit([]string{"thumbs-down", "thumbs-up"}[v]), "BOOLEAN"
		case g.r.Intn(15) == 0:
			value = "NULL"
		}
		rows = append(rows, fmt.Sprintf("'sc-%05d', %s, %s, %s, %s, %s, %s, %s, %s, %s, %s",
			i, lit(tr.project), lit(tr.id), g.maybe(2, fmt.Sprintf("'obs-%05d'", g.r.Intn(nObs))), lit(name), value, sv, lit(dt),
			lit(g.pick([]string{"API", "EVAL", "ANNOTATION"})), g.maybe(3, lit(g.pick([]string{"", "good", "bad answer", "needs review"}))),
			tsLit(tr.at.Add(time.Duration(g.r.Intn(3600))*time.Second))))
	}
	g.insert("scores", rows)

	var req, resp []string
	for i := 0; i < 1000; i++ {
		at := g.ts()
		model := g.pick(models)
		props := "'{}'"
		if g.r.Intn(3) != 0 {
			props = lit(fmt.Sprintf(`{"Helicone-Property-App": "%s", "Helicone-Property-Feature": "%s"}`, g.pick([]string{"web", "mobile", "cli"}), g.pick([]string{"chat", "search", "summary"})))
		}
		body := lit(fmt.Sprintf(`{"model": "%s", "stream": %t, "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u%d"}]}`, model, g.r.Intn(2) == 0, i))
		req = append(req, fmt.Sprintf("'00000000-0000-4000-8000-%012d', %s, %s, %s, %s, %s, %s, %s, %s", i, tsLit(at), lit(fmt.Sprintf("org-%d", g.r.Intn(2))),
			g.maybe(6, lit(fmt.Sprintf("user-%d", g.r.Intn(40)))), lit(g.pick([]string{"/v1/chat/completions", "/v1/embeddings", "/v1/messages"})),
			lit(g.pick([]string{"OPENAI", "ANTHROPIC", "TOGETHER"})), g.maybe(20, lit(model)), g.maybe(25, body), props))
		if g.r.Intn(25) == 0 {
			continue // no response yet
		}
		status := []int{200, 200, 200, 200, 200, 200, 429, 500, 400}[g.r.Intn(9)]
		pt, ct := g.r.Intn(3000), g.r.Intn(800)
		rbody := "NULL"
		if status == 200 {
			rbody = lit(fmt.Sprintf(`{"id": "chatcmpl-%d", "usage": {"prompt_tokens": %d, "completion_tokens": %d, "total_tokens": %d}, "choices": [{"index": 0, "finish_reason": "%s"}]}`,
				i, pt, ct, pt+ct, g.pick([]string{"stop", "length", "tool_calls"})))
		} else {
			rbody = lit(fmt.Sprintf(`{"error": {"type": "%s", "message": "m"}}`, g.pick([]string{"rate_limit", "server_error", "invalid_request"})))
			pt, ct = 0, 0
		}
		resp = append(resp, fmt.Sprintf("'00000000-0000-4000-9000-%012d', '00000000-0000-4000-8000-%012d', %s, %d, %s, %s, %s, %s, %s, %s", i, i,
			tsLit(at.Add(time.Duration(g.r.Intn(30000))*time.Millisecond)), status, rbody, g.maybe(30, fmt.Sprint(g.r.Intn(30000))),
			g.maybe(10, fmt.Sprint(pt)), g.maybe(10, fmt.Sprint(ct)), lit(model), g.maybe(10, fmt.Sprintf("%g", float64(pt)*3e-6+float64(ct)*1.5e-5))))
	}
	g.insert("request", req)
	g.insert("response", resp)

	rows = nil
	for tr := 0; tr < 250; tr++ {
		traceID := fmt.Sprintf("%032x", tr*7919+1)
		at := g.ts()
		n := 1 + g.r.Intn(10)
		root := fmt.Sprintf("%016x", tr*100)
		for j := 0; j < n; j++ {
			span := fmt.Sprintf("%016x", tr*100+j)
			parent := "NULL"
			if j > 0 {
				parent = lit(root)
				if j > 2 && g.r.Intn(2) == 0 {
					parent = lit(fmt.Sprintf("%016x", tr*100+1))
				}
			}
			start := at.Add(time.Duration(j*g.r.Intn(500)) * time.Millisecond)
			dur := time.Duration(g.r.Intn(5000000)) * time.Microsecond
			name, attrs := "workflow.run", `{"traceloop.entity.name": "agent"}`
			if j > 0 {
				name = g.pick([]string{"openai.chat", "anthropic.messages", "retriever.query", "tool.call"})
				attrs = fmt.Sprintf(`{"gen_ai.system": "%s", "gen_ai.request.model": "%s", "gen_ai.usage.prompt_tokens": %d, "gen_ai.usage.completion_tokens": %d, "llm.is_streaming": %t}`,
					g.pick([]string{"openai", "anthropic"}), g.pick(models), g.r.Intn(2000), g.r.Intn(500), g.r.Intn(2) == 0)
				if name == "retriever.query" {
					attrs = fmt.Sprintf(`{"db.system": "pgvector", "retriever.top_k": %d}`, 1+g.r.Intn(10))
				}
			}
			events := "NULL"
			if g.r.Intn(6) == 0 {
				events = lit(`[{"name": "exception", "attributes": {"exception.type": "TimeoutError"}}]`)
			}
			rows = append(rows, fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s",
				lit(traceID), lit(span), parent, lit(name), lit(g.pick([]string{"INTERNAL", "CLIENT", "SERVER"})),
				lit(g.pick([]string{"chatbot", "indexer"})), tsLit(start), tsLit(start.Add(dur)), dur.Nanoseconds(),
				lit(g.pick([]string{"OK", "OK", "OK", "UNSET", "ERROR"})), lit(attrs), events))
		}
	}
	g.insert("spans", rows)

	rows = nil
	for i := 0; i < 600; i++ {
		run := fmt.Sprintf("run-%d", i/150)
		score := g.maybe(12, fmt.Sprintf("%d.%03d", g.r.Intn(2), g.r.Intn(1000)))
		passed := g.maybe(12, fmt.Sprint(g.r.Intn(3) != 0))
		rows = append(rows, fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s, %s, %s", lit(run), lit(g.pick([]string{"qa-golden", "toxicity-set"})),
			lit(fmt.Sprintf("item-%d", i%50)), lit(g.pick([]string{"exact_match", "faithfulness", "relevance"})), score, passed,
			g.maybe(20, fmt.Sprint(g.r.Intn(9000))), lit(g.pick(models[:4])), tsLit(base.Add(time.Duration(i/150)*24*time.Hour+time.Duration(i%150)*time.Minute))))
	}
	// eval_results takes its ids from its sequence.
	for len(rows) > 0 {
		n := min(200, len(rows))
		g.stmts = append(g.stmts, "INSERT INTO eval_results (run_id, dataset, item_id, metric, score, passed, latency_ms, model, created_at) VALUES\n("+strings.Join(rows[:n], "),\n(")+")")
		rows = rows[n:]
	}
	return g.stmts
}
