// Package gen generates synthetic rows of LLM API calls for ingest
// benchmarks, deterministically from a seed, and renders them in the formats
// a PostgreSQL-wire database ingests: COPY text, CSV, binary COPY, and
// arguments for a parameterised INSERT.
//
// The rows fit this table (Loam; PostgreSQL uses text and double precision
// and drops the Loam clauses, see CreateTableLoam and CreateTablePostgres):
//
//	CREATE TABLE llm_calls (
//	  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
//	  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
//	)
//	PARTITIONED BY (day(ts))
//	SORTED BY (tenant, model, ts)
//	WITH (retention = '180 days' ON ts);
//
// A data set is the sequence of rows of one seed. Row i depends only on the
// seed and i (rows are drawn in blocks of BlockRows, each block from its own
// PCG stream), so a loader may split a data set into ranges, one a
// connection, and still load exactly the rows a single connection would.
package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// BlockRows is the number of consecutive rows drawn from one PCG stream.
const BlockRows = 1024

// Span is the time range the timestamps cover: the 30 days before End.
const Span = 30 * 24 * time.Hour

// End is the exclusive upper bound of the generated timestamps.
var End = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// Tenants is the number of distinct tenants.
const Tenants = 200

// Row is one LLM API call.
type Row struct {
	TS               time.Time // UTC, whole milliseconds
	Tenant           string
	Model            string
	PromptTokens     int32
	CompletionTokens int32
	CostUSD          float64
	LatencyMS        int32
}

// Model is an LLM with its list prices and a latency profile.
type Model struct {
	Name string
	// Prices in US dollars per million tokens.
	PromptPrice, CompletionPrice float64
	// Latency: first-token time in ms plus per-token times.
	BaseMS, PromptMSPerToken, CompletionMSPerToken float64
	// Weight is the model's share of calls (relative).
	Weight float64
}

// Models are the models calls go to, with realistic 2025-era list prices.
var Models = []Model{
	{"gpt-4o", 2.50, 10.00, 350, 0.020, 12, 18},
	{"gpt-4o-mini", 0.15, 0.60, 250, 0.010, 7, 30},
	{"o3-mini", 1.10, 4.40, 900, 0.015, 9, 6},
	{"claude-3-5-sonnet", 3.00, 15.00, 450, 0.025, 14, 16},
	{"claude-3-5-haiku", 0.80, 4.00, 300, 0.012, 8, 12},
	{"gemini-1.5-pro", 1.25, 5.00, 500, 0.020, 11, 6},
	{"gemini-1.5-flash", 0.075, 0.30, 200, 0.008, 5, 8},
	{"llama-3.1-70b", 0.88, 0.88, 220, 0.010, 6, 4},
}

// tenantNames[k] is the name of the tenant of Zipf rank k. The ranks are
// shuffled (with a fixed seed) so the heavy tenants are not simply the first
// ones in sort order.
var tenantNames = func() []string {
	names := make([]string, Tenants)
	for i := range names {
		names[i] = fmt.Sprintf("tenant-%03d", i)
	}
	r := rand.New(rand.NewPCG(0x6c6f616d, 0x74656e61))
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	return names
}()

// TenantName is the name of the tenant of Zipf popularity rank k (0 is the
// busiest), the same in every data set. Queries on one tenant pick theirs
// by rank.
func TenantName(k int) string { return tenantNames[k] }

// modelCDF is the cumulative, normalised model weights.
var modelCDF = func() []float64 {
	var sum float64
	for _, m := range Models {
		sum += m.Weight
	}
	cdf := make([]float64, len(Models))
	var acc float64
	for i, m := range Models {
		acc += m.Weight / sum
		cdf[i] = acc
	}
	cdf[len(cdf)-1] = 1
	return cdf
}()

// Gen draws the rows of one data set in order. It is not safe for
// concurrent use; give each goroutine its own Gen (see NewAt).
type Gen struct {
	seed uint64
	next uint64 // index of the row Next returns
	pcg  *rand.PCG
	r    *rand.Rand
	zipf *rand.Zipf
}

// New returns a generator of the data set of seed, at row 0.
func New(seed uint64) *Gen { return NewAt(seed, 0) }

// NewAt returns a generator of the data set of seed positioned at row i:
// its first Next returns the row a New(seed) would return as its i-th
// (counting from 0).
func NewAt(seed, i uint64) *Gen {
	g := &Gen{seed: seed, pcg: rand.NewPCG(0, 0)}
	g.r = rand.New(g.pcg)
	// Zipf-like tenant popularity: rank k has weight ∝ (1+k)^-1.1.
	g.zipf = rand.NewZipf(g.r, 1.1, 1, Tenants-1)
	g.next = i - i%BlockRows
	g.reseed()
	for g.next < i {
		g.Next()
	}
	return g
}

// Index is the index of the row the next call of Next returns.
func (g *Gen) Index() uint64 { return g.next }

// reseed starts the PCG stream of the block g.next is in.
func (g *Gen) reseed() {
	g.pcg.Seed(splitmix(g.seed), splitmix(g.seed^splitmix(g.next/BlockRows+1)))
}

// splitmix is SplitMix64's finaliser, to decorrelate adjacent seeds.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Next returns the next row of the data set.
func (g *Gen) Next() Row {
	if g.next%BlockRows == 0 {
		g.reseed()
	}
	g.next++
	r := g.r

	ms := r.Int64N(Span.Milliseconds())
	ts := time.UnixMilli(End.UnixMilli() - Span.Milliseconds() + ms).UTC()

	tenant := tenantNames[g.zipf.Uint64()]

	u := r.Float64()
	mi := 0
	for mi < len(modelCDF)-1 && u >= modelCDF[mi] {
		mi++
	}
	m := &Models[mi]

	// Log-normal token counts: prompts median ~700 with a long tail (RAG,
	// long contexts), completions median ~180.
	prompt := logNormal(r, 700, 1.1, 1, 128000)
	completion := logNormal(r, 180, 0.9, 1, 8192)

	cost := (float64(prompt)*m.PromptPrice + float64(completion)*m.CompletionPrice) / 1e6
	// Round to 1e-9 dollars so text renderings stay short and exact.
	cost = math.Round(cost*1e9) / 1e9

	lat := m.BaseMS + float64(prompt)*m.PromptMSPerToken + float64(completion)*m.CompletionMSPerToken
	lat *= math.Exp(0.25 * r.NormFloat64()) // queueing and network noise
	latency := int32(min(max(lat, 1), 600000))

	return Row{
		TS:               ts,
		Tenant:           tenant,
		Model:            m.Name,
		PromptTokens:     prompt,
		CompletionTokens: completion,
		CostUSD:          cost,
		LatencyMS:        latency,
	}
}

// logNormal draws exp(N(ln median, sigma)) clamped to [lo, hi].
func logNormal(r *rand.Rand, median, sigma float64, lo, hi int32) int32 {
	v := median * math.Exp(sigma*r.NormFloat64())
	return int32(min(max(math.Round(v), float64(lo)), float64(hi)))
}

// Columns are the column names in table order.
var Columns = []string{"ts", "tenant", "model", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms"}

// CreateTableLoam is the Loam DDL for a table of these rows named name.
func CreateTableLoam(name string) string {
	return "CREATE TABLE " + name + ` (
  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
)
PARTITIONED BY (day(ts))
SORTED BY (tenant, model, ts)
WITH (retention = '180 days' ON ts)`
}

// CreateTablePostgres is the PostgreSQL DDL for an unindexed table of these
// rows named name.
func CreateTablePostgres(name string) string {
	return "CREATE TABLE " + name + ` (
  ts timestamp(3) with time zone, tenant text, model text,
  prompt_tokens int, completion_tokens int, cost_usd double precision, latency_ms int
)`
}
