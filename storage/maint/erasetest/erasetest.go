// Package erasetest finds bytes in every file under a directory, looking
// inside the files that would hide them: Avro files (Iceberg's manifests
// and manifest lists, whose blocks are deflate-compressed) are searched
// decompressed, and Parquet files (whose pages may be compressed) by their
// string and binary values too. Erasure tests (VACUUM) use it to show no
// byte of a deleted row is left.
package erasetest

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// FilesHolding lists the files under dir whose contents hold b.
func FilesHolding(dir string, b []byte) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found, err := holds(path, data, b)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if found {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

func holds(path string, data, b []byte) (bool, error) {
	if bytes.Contains(data, b) {
		return true, nil
	}
	switch {
	case strings.HasSuffix(path, ".avro"):
		plain, err := avroBlocks(data)
		if err != nil {
			return false, err
		}
		return bytes.Contains(plain, b), nil
	case strings.HasSuffix(path, ".parquet"):
		return parquetHolds(data, b)
	}
	return false, nil
}

var avroMagic = []byte("Obj\x01")

// avroBlocks is an Avro object container file's data blocks,
// decompressed (codec null or deflate).
func avroBlocks(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, avroMagic) {
		return nil, errors.New("not an Avro object container file")
	}
	r := bytes.NewReader(data[len(avroMagic):])
	long := func() (int64, error) { return binary.ReadVarint(r) }
	str := func() ([]byte, error) {
		n, err := long()
		if err != nil || n < 0 || n > int64(r.Len()) {
			return nil, errors.New("bad Avro header")
		}
		buf := make([]byte, n)
		_, err = io.ReadFull(r, buf)
		return buf, err
	}
	codec := "null"
	for {
		n, err := long()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := long(); err != nil { // the block's size in bytes
				return nil, err
			}
		}
		for range n {
			k, err := str()
			if err != nil {
				return nil, err
			}
			v, err := str()
			if err != nil {
				return nil, err
			}
			if string(k) == "avro.codec" {
				codec = string(v)
			}
		}
	}
	var sync [16]byte
	if _, err := io.ReadFull(r, sync[:]); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for r.Len() > 0 {
		if _, err := long(); err != nil { // objects in the block
			return nil, err
		}
		block, err := str()
		if err != nil {
			return nil, err
		}
		switch codec {
		case "null":
			out.Write(block)
		case "deflate":
			plain, err := io.ReadAll(flate.NewReader(bytes.NewReader(block)))
			if err != nil {
				return nil, fmt.Errorf("inflate an Avro block: %w", err)
			}
			out.Write(plain)
		default:
			return nil, fmt.Errorf("Avro codec %q", codec)
		}
		if _, err := io.ReadFull(r, sync[:]); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// parquetHolds reads every column of a Parquet file and looks for b in
// its string and binary values.
func parquetHolds(data, b []byte) (bool, error) {
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return false, err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return false, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return false, err
	}
	defer tbl.Release()
	for i := 0; i < int(tbl.NumCols()); i++ {
		for _, c := range tbl.Column(i).Data().Chunks() {
			if arrayHolds(c, b) {
				return true, nil
			}
		}
	}
	return false, nil
}

func arrayHolds(a arrow.Array, b []byte) bool {
	switch a := a.(type) {
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			if strings.Contains(a.Value(i), string(b)) {
				return true
			}
		}
	case *array.LargeString:
		for i := 0; i < a.Len(); i++ {
			if strings.Contains(a.Value(i), string(b)) {
				return true
			}
		}
	case *array.Binary:
		for i := 0; i < a.Len(); i++ {
			if bytes.Contains(a.Value(i), b) {
				return true
			}
		}
	case *array.Struct:
		for f := 0; f < a.NumField(); f++ {
			if arrayHolds(a.Field(f), b) {
				return true
			}
		}
	case *array.List:
		return arrayHolds(a.ListValues(), b)
	}
	return false
}
