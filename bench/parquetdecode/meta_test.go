package parquetdecode

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestDumpLayout prints the files' row groups, codecs, encodings and page
// indexes (-v), to say what the decoders face.
func TestDumpLayout(t *testing.T) {
	for _, p := range files(t)[:1] {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := file.NewParquetReader(f)
		if err != nil {
			t.Fatal(err)
		}
		md := pr.MetaData()
		t.Logf("%s: %d rows, %d row groups, created by %s", p, md.NumRows, md.NumRowGroups(), md.GetCreatedBy())
		rg := md.RowGroup(0)
		for c := 0; c < rg.NumColumns(); c++ {
			cc, _ := rg.ColumnChunk(c)
			t.Logf("  %s: %s %v comp=%d uncomp=%d dict=%v colindex=%v offindex=%v", md.Schema.Column(c).Name(), cc.Compression(), cc.Encodings(),
				cc.TotalCompressedSize(), cc.TotalUncompressedSize(), cc.HasDictionaryPage(), cc.GetColumnIndexLocation() != nil, cc.GetOffsetIndexLocation() != nil)
		}
		pr.Close()
	}
}
