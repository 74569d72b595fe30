package icetable

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// fileDeletes is a snapshot's delete files by the data file they name:
// deletion vectors and position delete files that reference one data file,
// the only kinds Loam writes (delta.go). Without it every scan of a table
// with row deletes planned through iceberg-go, which reads and parses
// every manifest anew: a table upserted through a few hundred link
// commits took half a second to plan, growing with each commit.
type fileDeletes struct {
	dvs map[string]iceberg.ManifestEntry   // at most one a data file
	pos map[string][]iceberg.ManifestEntry // by sequence number
}

// fileDeletes reads the delete manifests among mans, from the manifest
// cache. It answers errUnsupportedPrune for delete files it cannot match
// exactly as iceberg-go's planning does: equality deletes, position
// deletes that do not name their data file, two deletion vectors of one
// data file (which iceberg-go refuses).
func (s *Store) fileDeletes(fs icebergio.IO, mans []iceberg.ManifestFile) (*fileDeletes, error) {
	d := &fileDeletes{}
	for _, m := range mans {
		if m.ManifestContent() != iceberg.ManifestContentDeletes {
			continue
		}
		entries, err := s.manifests.entries(fs, m)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			f := e.DataFile()
			ref := referencedFile(f)
			if f.ContentType() != iceberg.EntryContentPosDeletes || ref == "" {
				return nil, errUnsupportedPrune
			}
			if table.IsDeletionVector(f) {
				if d.dvs == nil {
					d.dvs = map[string]iceberg.ManifestEntry{}
				}
				if _, dup := d.dvs[ref]; dup {
					return nil, errUnsupportedPrune
				}
				d.dvs[ref] = e
				continue
			}
			if d.pos == nil {
				d.pos = map[string][]iceberg.ManifestEntry{}
			}
			d.pos[ref] = append(d.pos[ref], e)
		}
	}
	for _, es := range d.pos {
		slices.SortStableFunc(es, func(a, b iceberg.ManifestEntry) int { return cmp.Compare(a.SequenceNum(), b.SequenceNum()) })
	}
	return d, nil
}

// match puts the delete files that apply to task's data file (of the
// manifest entry e) on the task, as iceberg-go's planning does: a delete
// applies to data files of its sequence number or older; a deletion
// vector replaces the file's position deletes, whose positions it holds.
func (d *fileDeletes) match(task *table.FileScanTask, e iceberg.ManifestEntry) {
	path := e.DataFile().FilePath()
	seq := e.SequenceNum()
	if dv, ok := d.dvs[path]; ok {
		if dvSeq := dv.SequenceNum(); dvSeq < 0 || seq <= dvSeq {
			task.DeletionVectorFiles = []iceberg.DataFile{dv.DataFile()}
			return
		}
	}
	for _, p := range d.pos[path] {
		if p.SequenceNum() >= seq {
			task.DeleteFiles = append(task.DeleteFiles, p.DataFile())
		}
	}
}

// filePathField is the field ID of a position delete file's file_path.
const filePathField = 2147483546

// referencedFile is the one data file a position delete file or deletion
// vector names, or "": its referenced_data_file, or else (a v2 manifest
// has no such field) the file_path bounds when they are one path, as
// iceberg-go's planning decides it.
func referencedFile(f iceberg.DataFile) string {
	if ref := f.ReferencedDataFile(); ref != nil && *ref != "" {
		return *ref
	}
	lo, hi := f.LowerBoundValues()[filePathField], f.UpperBoundValues()[filePathField]
	if len(lo) == 0 || !bytes.Equal(lo, hi) {
		return ""
	}
	return string(lo)
}
