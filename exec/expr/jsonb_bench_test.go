package expr

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// llmAttributes builds n rows of LLM-call attributes shaped as the
// observability dashboards' (a few hundred bytes, nested objects).
func llmAttributes(n int) []string {
	r := rand.New(rand.NewSource(3))
	models := []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "llama-3-70b", "x"}
	out := make([]string, n)
	for i := range out {
		doc := fmt.Sprintf(`{"llm": {"provider": "openai", "model_name": %q, "temperature": %.1f, "max_tokens": %d,`+
			` "token_count": {"prompt": %d, "completion": %d, "total": %d}, "invocation_parameters": "{\"stream\": false}"},`+
			` "session": {"id": "s-%06d", "user": {"id": "u-%04d", "plan": "pro"}}, "input": {"mime_type": "text/plain",`+
			` "value": "Summarize the following document in three sentences, please."}, "output": {"value": "ok"},`+
			` "tags": ["prod", "eu-west-1", "v2"], "latency_ms": %d.%d}`,
			models[r.Intn(len(models))], r.Float64(), 256+r.Intn(4096), r.Intn(3000), r.Intn(800), r.Intn(3800),
			r.Intn(100000), r.Intn(5000), r.Intn(5000), r.Intn(100))
		s, err := types.NormalizeJSONB(doc)
		if err != nil {
			panic(err)
		}
		out[i] = s
	}
	return out
}

func attributesBatch(docs []string) arrow.RecordBatch {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	bld.AppendValues(docs, nil)
	col := bld.NewArray()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "attributes", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{col}, int64(len(docs)))
}

// BenchmarkJSONBPathFilter is `attributes #>> '{llm,model_name}' = 'x'`
// over 100k rows, in ns a row. warm reads a buffer seen before (a cached
// file queried again); cold builds a new buffer each time, so its binary
// form is made inside the timing.
func BenchmarkJSONBPathFilter(b *testing.B) {
	const n = 100_000
	docs := llmAttributes(n)
	pred := &Compare{Op: EQ,
		L: JSONPathOp(&Col{Idx: 0, T: types.TJSONB, Name: "attributes"}, &Const{D: types.TextDatum("{llm,model_name}")}, true),
		R: &Const{D: types.TextDatum("x")}}
	ctx := &Ctx{Loc: time.UTC}
	run := func(b *testing.B, batch arrow.RecordBatch) {
		out, err := pred.Eval(ctx, batch)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.Run("warm", func(b *testing.B) {
		batch := attributesBatch(docs)
		defer batch.Release()
		run(b, batch)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			run(b, batch)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	})
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			batch := attributesBatch(docs)
			b.StartTimer()
			run(b, batch)
			batch.Release()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
	})
}
