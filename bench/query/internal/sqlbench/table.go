package sqlbench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// PrintTable aligns columns two spaces apart: the first left, the others
// right.
func PrintTable(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// CellText is a measurement as a report shows it: the median in ms, or
// the status.
func CellText(m *Measurement) string {
	switch {
	case m == nil:
		return "-"
	case m.Status != OK:
		return m.Status
	case m.MS >= 100:
		return fmt.Sprintf("%.0f", m.MS)
	}
	return fmt.Sprintf("%.1f", m.MS)
}

// Answered reports whether m is a time.
func Answered(m *Measurement) bool { return m != nil && m.Status == OK && m.MS > 0 }

// Ratio is a's median over b's, 0 when either did not answer.
func Ratio(a, b *Measurement) float64 {
	if !Answered(a) || !Answered(b) {
		return 0
	}
	return a.MS / b.MS
}

// RatioText is Ratio as "1.23x", or "-".
func RatioText(a, b *Measurement) string {
	if x := Ratio(a, b); x > 0 {
		return fmt.Sprintf("%.2fx", x)
	}
	return "-"
}

// Geomean of positive numbers; 0 for none.
func Geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// Check compares an engine's answer with the reference engine's: "" when
// either did not answer, "ok", or "MISMATCH: " and the first difference.
func Check(m *Measurement, got Result, ref *Measurement, want Result, exact bool) string {
	if m == nil || ref == nil || m.Status != OK || ref.Status != OK {
		return ""
	}
	if d := Diff(got, want, exact); d != "" {
		return "MISMATCH: " + d
	}
	return "ok"
}
