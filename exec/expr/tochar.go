package expr

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// to_char, to_timestamp(text, text) and to_date: PostgreSQL's template
// patterns (formatting.c), the common subset.

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanMon   = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

// dtKeywords are the date/time template patterns, longest first so that
// "HH24" wins over "HH" and "DDD" over "DD".
var dtKeywords = []string{
	"Y,YYY", "YYYY", "YYY", "YY", "Y", "IYYY", "IYY", "IY", "I",
	"HH24", "HH12", "HH", "MI", "SSSSS", "SSSS", "SS", "MS", "US",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6",
	"A.M.", "a.m.", "P.M.", "p.m.", "AM", "am", "PM", "pm",
	"MONTH", "Month", "month", "MON", "Mon", "mon", "MM",
	"DAY", "Day", "day", "DY", "Dy", "dy", "DDD", "DD", "D", "ID", "IDDD",
	"IW", "WW", "W", "Q", "CC", "J", "RM", "rm",
	"TZH", "TZM", "TZ", "tz", "OF",
}

// dtNode is one piece of a parsed template: a literal, or a keyword with
// its FM prefix and TH suffix.
type dtNode struct {
	lit string
	kw  string
	fm  bool
	th  string // "TH", "th" or ""
}

func parseDTTemplate(f string) []dtNode {
	var out []dtNode
	for i := 0; i < len(f); {
		fm := false
		if strings.HasPrefix(f[i:], "FM") || strings.HasPrefix(f[i:], "fm") {
			fm = true
			i += 2
		}
		if i < len(f) && f[i] == '"' {
			j := i + 1
			var sb strings.Builder
			for j < len(f) && f[j] != '"' {
				if f[j] == '\\' && j+1 < len(f) {
					j++
				}
				sb.WriteByte(f[j])
				j++
			}
			out = append(out, dtNode{lit: sb.String()})
			i = j + 1
			continue
		}
		if i < len(f) && f[i] == '\\' && i+1 < len(f) {
			out = append(out, dtNode{lit: f[i+1 : i+2]})
			i += 2
			continue
		}
		matched := ""
		for _, k := range dtKeywords {
			if strings.HasPrefix(f[i:], k) && len(k) > len(matched) {
				matched = k
			}
		}
		// Case-insensitive keywords PostgreSQL also takes in lower case.
		if matched == "" {
			up := strings.ToUpper(f[i:])
			for _, k := range []string{"YYYY", "HH24", "HH12", "HH", "MI", "SS", "MS", "US", "DDD", "DD", "MM", "IW", "TZH", "TZM", "OF", "Q", "CC", "J", "D", "Y", "WW", "W"} {
				if strings.HasPrefix(up, k) && len(k) > len(matched) {
					matched = k
				}
			}
			if matched != "" {
				n := dtNode{kw: matched, fm: fm}
				i += len(matched)
				n.th, i = thSuffix(f, i)
				out = append(out, n)
				continue
			}
		}
		if matched == "" {
			if fm {
				continue
			}
			_, size := utf8.DecodeRuneInString(f[i:])
			out = append(out, dtNode{lit: f[i : i+size]})
			i += size
			continue
		}
		n := dtNode{kw: matched, fm: fm}
		i += len(matched)
		n.th, i = thSuffix(f, i)
		out = append(out, n)
	}
	return out
}

func thSuffix(f string, i int) (string, int) {
	if strings.HasPrefix(f[i:], "TH") || strings.HasPrefix(f[i:], "th") {
		return f[i : i+2], i + 2
	}
	return "", i
}

func ordinal(n int64, th string) string {
	s := "th"
	if m := n % 100; m < 11 || m > 13 {
		switch n % 10 {
		case 1:
			s = "st"
		case 2:
			s = "nd"
		case 3:
			s = "rd"
		}
	}
	if th == "TH" {
		return strings.ToUpper(s)
	}
	return s
}

// dtFields are the broken-down values to_char prints.
type dtFields struct {
	year, mon, mday, hour, min, sec int64
	fsec                            int64
	days                            int64 // day number, for day-of-week and friends
	interval                        bool
	tz                              bool
	zoneAbbr                        string
	off                             int64 // seconds east
}

func fieldsOfWall(w int64) dtFields {
	days := floorDiv(w, usPerDay)
	tod := w - days*usPerDay
	y, m, d := civil(days)
	return dtFields{year: int64(y), mon: int64(m), mday: int64(d), hour: tod / 3600e6, min: tod / 60e6 % 60,
		sec: tod / 1e6 % 60, fsec: tod % 1e6, days: days}
}

func padNum(n int64, width int, fm bool) string {
	s := strconv.FormatInt(abs64(n), 10)
	if !fm {
		for len(s) < width {
			s = "0" + s
		}
	}
	if n < 0 {
		return "-" + s
	}
	return s
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func caseAs(kw, s string) string {
	switch {
	case kw == strings.ToUpper(kw):
		return strings.ToUpper(s)
	case kw == strings.ToLower(kw):
		return strings.ToLower(s)
	}
	return s
}

func padName(s string, fm bool) string {
	if fm {
		return s
	}
	for len(s) < 9 {
		s += " "
	}
	return s
}

func formatDT(f dtFields, tmpl string) string {
	var sb strings.Builder
	for _, n := range parseDTTemplate(tmpl) {
		if n.kw == "" {
			sb.WriteString(n.lit)
			continue
		}
		num := int64(math.MinInt64)
		width := 0
		year := f.year
		if !f.interval && year <= 0 {
			year = 1 - year // BC years print as positive
		}
		switch n.kw {
		case "YYYY":
			num, width = year, 4
		case "Y,YYY":
			s := padNum(year/1000, 1, true) + "," + padNum(year%1000, 3, false)
			sb.WriteString(s)
			continue
		case "YYY":
			num, width = year%1000, 3
		case "YY":
			num, width = year%100, 2
		case "Y":
			num, width = year%10, 1
		case "IYYY", "IYY", "IY", "I":
			iy, _ := isoWeek(f.days)
			w := len(n.kw)
			num, width = int64(iy)%int64(math.Pow10(w)), w
			if w == 4 {
				num = int64(iy)
			}
		case "HH24":
			num, width = f.hour, 2
		case "HH12", "HH":
			h := f.hour % 12
			if h == 0 {
				h = 12
			}
			num, width = h, 2
		case "MI":
			num, width = f.min, 2
		case "SS":
			num, width = f.sec, 2
		case "SSSS", "SSSSS":
			num = (f.hour*60+f.min)*60 + f.sec
		case "MS":
			num, width = f.fsec/1000, 3
		case "US":
			num, width = f.fsec, 6
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
			d := int(n.kw[2] - '0')
			num, width = f.fsec/int64(math.Pow10(6-d)), d
		case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
			s := "AM"
			if f.hour%24 >= 12 {
				s = "PM"
			}
			if strings.Contains(n.kw, ".") {
				s = s[:1] + "." + s[1:] + "."
			}
			sb.WriteString(caseAs(n.kw, s))
			continue
		case "MONTH", "Month", "month":
			if f.mon >= 1 {
				sb.WriteString(caseAs(n.kw, padName(monthNames[f.mon-1], n.fm)))
			}
			continue
		case "MON", "Mon", "mon":
			if f.mon >= 1 {
				sb.WriteString(caseAs(n.kw, monthNames[f.mon-1][:3]))
			}
			continue
		case "MM":
			num, width = f.mon, 2
		case "RM", "rm":
			if f.mon >= 1 {
				s := romanMon[f.mon-1]
				if !n.fm {
					s = (s + "    ")[:4]
				}
				sb.WriteString(caseAs(n.kw, s))
			}
			continue
		case "DAY", "Day", "day":
			sb.WriteString(caseAs(n.kw, padName(dayNames[floorMod(f.days+4, 7)], n.fm)))
			continue
		case "DY", "Dy", "dy":
			sb.WriteString(caseAs(n.kw, dayNames[floorMod(f.days+4, 7)][:3]))
			continue
		case "DDD":
			y, _, _ := civil(f.days)
			num, width = f.days-daysFromCivil(y, 1, 1)+1, 3
			if f.interval {
				num = f.mday
			}
		case "IDDD":
			iy, _ := isoWeek(f.days)
			start := daysFromCivil(iy, 1, 4)
			start -= floorMod(start+3, 7)
			num, width = f.days-start+1, 3
		case "DD":
			// "%0*d" with the sign inside the width (other fields widen
			// by one for a sign): an interval's -9 days print as -9.
			num, width = f.mday, 2
			if num < 0 && width > 0 {
				width--
			}
		case "D":
			num = floorMod(f.days+4, 7) + 1
		case "ID":
			d := floorMod(f.days+4, 7)
			if d == 0 {
				d = 7
			}
			num = d
		case "IW":
			_, w := isoWeek(f.days)
			num, width = int64(w), 2
		case "WW":
			y, _, _ := civil(f.days)
			num, width = (f.days-daysFromCivil(y, 1, 1))/7+1, 2
		case "W":
			num = (f.mday-1)/7 + 1
		case "Q":
			num = (f.mon-1)/3 + 1
		case "CC":
			if f.year > 0 {
				num = (f.year + 99) / 100
			} else {
				num = -((99 - (f.year - 1)) / 100)
			}
			width = 2
		case "J":
			num = f.days + 2440588
		case "TZ", "tz":
			if f.tz {
				sb.WriteString(caseAs(n.kw, f.zoneAbbr))
			}
			continue
		case "TZH":
			if f.tz {
				s := "+"
				if f.off < 0 {
					s = "-"
				}
				sb.WriteString(s + padNum(abs64(f.off)/3600, 2, n.fm))
			}
			continue
		case "TZM":
			if f.tz {
				sb.WriteString(padNum(abs64(f.off)/60%60, 2, n.fm))
			}
			continue
		case "OF":
			if f.tz {
				s := "+"
				if f.off < 0 {
					s = "-"
				}
				s += padNum(abs64(f.off)/3600, 2, false)
				if m := abs64(f.off) / 60 % 60; m != 0 {
					s += ":" + padNum(m, 2, false)
				}
				sb.WriteString(s)
			}
			continue
		}
		sb.WriteString(padNum(num, width, n.fm))
		if n.th != "" {
			sb.WriteString(ordinal(abs64(num), n.th))
		}
	}
	return sb.String()
}

func toCharDatum(c *Ctx, a []types.Datum) (types.Datum, error) {
	d, tmpl := a[0], a[1].S
	if (d.T.Kind == types.Timestamp || d.T.Kind == types.TimestampTZ) && types.IsInfTimestamp(d.I) {
		return types.NullOf(types.TText), nil // PostgreSQL's to_char of ±infinity
	}
	switch d.T.Kind {
	case types.Timestamp:
		return types.TextDatum(formatDT(fieldsOfWall(d.I), tmpl)), nil
	case types.TimestampTZ:
		loc := c.Loc
		if loc == nil {
			loc = time.UTC
		}
		t := time.UnixMicro(d.I).In(loc)
		name, off := t.Zone()
		f := fieldsOfWall(d.I + int64(off)*1e6)
		f.tz, f.zoneAbbr, f.off = true, name, int64(off)
		if name == "" {
			f.zoneAbbr = zoneOffsetText(int64(off))
		}
		return types.TextDatum(formatDT(f, tmpl)), nil
	case types.Interval:
		iv := d.Interval()
		f := dtFields{year: int64(iv.Months / 12), mon: int64(iv.Months % 12), mday: int64(iv.Days),
			hour: iv.Micros / 3600e6, min: iv.Micros / 60e6 % 60, sec: iv.Micros / 1e6 % 60, fsec: iv.Micros % 1e6, interval: true}
		return types.TextDatum(formatDT(f, tmpl)), nil
	}
	s, err := toCharNumber(d, tmpl)
	return types.TextDatum(s), err
}

func zoneOffsetText(off int64) string {
	s := "+"
	if off < 0 {
		s, off = "-", -off
	}
	s += padNum(off/3600, 2, false)
	if m := off / 60 % 60; m != 0 {
		s += ":" + padNum(m, 2, false)
	}
	return s
}

// toCharNumber formats a number with the 9 0 . D , G S MI PR FM patterns.
func toCharNumber(d types.Datum, tmpl string) (string, error) {
	fm := false
	intPos, fracPos := 0, 0
	seenPoint := false
	signMode := ""
	for i := 0; i < len(tmpl); i++ {
		up := strings.ToUpper(tmpl[i:])
		switch {
		case strings.HasPrefix(up, "FM"):
			fm = true
			i++
		case tmpl[i] == '9' || tmpl[i] == '0':
			if seenPoint {
				fracPos++
			} else {
				intPos++
			}
		case tmpl[i] == '.' || up[0] == 'D':
			seenPoint = true
		case strings.HasPrefix(up, "MI"), strings.HasPrefix(up, "PR"), strings.HasPrefix(up, "SG"), strings.HasPrefix(up, "PL"):
			signMode = up[:2]
			i++
		case up[0] == 'S':
			signMode = "S"
		}
	}
	// The value rounded to the template's decimals, as digits.
	var neg bool
	var digits string
	switch d.T.Kind {
	case types.Float4, types.Float8:
		if math.IsNaN(d.F) || math.IsInf(d.F, 0) {
			digits = strings.Repeat("#", intPos)
			break
		}
		neg = d.F < 0
		digits = strconv.FormatFloat(math.Abs(d.F), 'f', fracPos, 64)
	case types.Numeric:
		dec, err := types.ParseDec(d.S)
		if err != nil {
			return "", err
		}
		neg = dec.Sign() < 0
		r := dec.Rescale(int32(fracPos))
		digits = strings.TrimPrefix(r.String(), "-")
	default:
		neg = d.I < 0
		digits = strconv.FormatInt(abs64(d.I), 10)
		if fracPos > 0 {
			digits += "." + strings.Repeat("0", fracPos)
		}
	}
	intDigits, fracDigits, _ := strings.Cut(digits, ".")
	if intDigits == "0" {
		intDigits = ""
	}
	overflow := len(intDigits) > intPos
	var sb strings.Builder
	started := false // a digit (or forced zero) has been written
	// A leading S puts the sign right before the first digit, as the
	// default sign does; other sign patterns print where they stand.
	leadingS := signMode == "S" && strings.HasPrefix(strings.TrimPrefix(strings.ToUpper(tmpl), "FM"), "S")
	signDone := signMode != "" && !leadingS && signMode != "PR"
	writeSign := func() {
		if signDone {
			return
		}
		signDone = true
		switch {
		case neg && signMode == "PR":
			sb.WriteByte('<')
		case neg:
			sb.WriteByte('-')
		case leadingS:
			sb.WriteByte('+')
		case !fm:
			sb.WriteByte(' ')
		}
	}
	pos := 0 // integer digit positions seen
	frac := 0
	seenPoint = false
	lastNonZeroFrac := -1
	if fm {
		for k := len(fracDigits) - 1; k >= 0; k-- {
			if fracDigits[k] != '0' {
				lastNonZeroFrac = k
				break
			}
		}
	}
	for i := 0; i < len(tmpl); i++ {
		up := strings.ToUpper(tmpl[i:])
		c := tmpl[i]
		switch {
		case strings.HasPrefix(up, "FM"):
			i++
		case (c == '9' || c == '0') && !seenPoint:
			idx := len(intDigits) - (intPos - pos)
			pos++
			if overflow {
				writeSign()
				sb.WriteByte('#')
				continue
			}
			switch {
			case idx >= 0:
				writeSign()
				started = true
				sb.WriteByte(intDigits[idx])
			case c == '0' || started:
				writeSign()
				started = true
				sb.WriteByte('0')
			case pos == intPos && len(intDigits) == 0 && fracPos == 0:
				// A zero value still shows its last digit.
				writeSign()
				started = true
				sb.WriteByte('0')
			case !fm:
				sb.WriteByte(' ')
			}
		case c == '9' || c == '0':
			if overflow {
				sb.WriteByte('#')
				continue
			}
			if fm && c == '9' && frac > lastNonZeroFrac {
				frac++
				continue
			}
			if frac < len(fracDigits) {
				sb.WriteByte(fracDigits[frac])
			}
			frac++
		case c == '.' || up[0] == 'D':
			seenPoint = true
			if overflow {
				sb.WriteByte('.')
				continue
			}
			writeSign()
			sb.WriteByte('.')
		case c == ',' || up[0] == 'G':
			if started || overflow {
				sb.WriteByte(',')
			} else if !fm {
				sb.WriteByte(' ')
			}
		case strings.HasPrefix(up, "TH"):
			i++
			if !neg && !overflow {
				n, _ := strconv.ParseInt("0"+intDigits, 10, 64)
				sb.WriteString(ordinal(n, tmpl[i-1:i+1]))
			}
		case strings.HasPrefix(up, "MI"):
			i++
			if neg {
				sb.WriteByte('-')
			} else if !fm {
				sb.WriteByte(' ')
			}
		case strings.HasPrefix(up, "PR"):
			i++
			if neg {
				sb.WriteByte('>')
			} else if !fm {
				sb.WriteByte(' ')
			}
		case strings.HasPrefix(up, "SG"), strings.HasPrefix(up, "PL"), up[0] == 'S':
			if up[0] != 'S' || strings.HasPrefix(up, "SG") {
				i++
			}
			if leadingS {
				continue
			}
			if neg {
				sb.WriteByte('-')
			} else {
				sb.WriteByte('+')
			}
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}

// toTimestamp parses s with a template, as to_timestamp and to_date do;
// the result is µs since 1970 (an instant for to_timestamp, the wall
// clock for to_date).
func toTimestamp(c *Ctx, s, tmpl string, tz bool) (int64, error) {
	year, mon, mday := int64(-1), int64(1), int64(1)
	var hour, min, sec, fsec int64
	pm, hasAMPM, hour12 := false, false, false
	doy := int64(-1)
	tzOff, tzSign, hasTZ := int64(0), int64(1), false
	i := 0
	skipSpaces := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	readNum := func(kw string, maxw int) (int64, error) {
		skipSpaces()
		start := i
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && (maxw <= 0 || i-start < maxw) {
			i++
		}
		v, err := strconv.ParseInt(s[start:i], 10, 64)
		if err != nil {
			rest := s[start:]
			if len(rest) > 0 {
				return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value %q for %q", rest, kw)
			}
			return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "source string too short for %q formatting field", kw)
		}
		return v, nil
	}
	readName := func(kw string, names []string, n int) (int64, error) {
		skipSpaces()
		for k, name := range names {
			cand := name
			if n > 0 {
				cand = name[:n]
			}
			if len(s)-i >= len(cand) && strings.EqualFold(s[i:i+len(cand)], cand) {
				i += len(cand)
				return int64(k), nil
			}
		}
		return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value %q for %q", s[i:], kw)
	}
	nodes := parseDTTemplate(tmpl)
	for ni, n := range nodes {
		// A year right before another field (YYYYMMDD) takes 4 digits.
		yearWidth := 0
		if ni+1 < len(nodes) && nodes[ni+1].kw != "" {
			yearWidth = 4
		}
		var err error
		if n.kw == "" {
			// A separator in the template skips one character of input
			// (any non-letter, non-digit), and spaces match runs of spaces.
			if strings.TrimSpace(n.lit) == "" {
				skipSpaces()
			} else if i < len(s) && !(s[i] >= '0' && s[i] <= '9') {
				i++
			}
			continue
		}
		switch n.kw {
		case "YYYY", "IYYY":
			year, err = readNum(n.kw, yearWidth)
		case "YYY", "YY", "Y":
			var v int64
			v, err = readNum(n.kw, len(n.kw))
			switch len(n.kw) {
			case 2:
				if v < 70 {
					v += 2000
				} else if v < 100 {
					v += 1900
				}
			case 3:
				if v < 100 {
					v += 2000
				} else if v < 1000 {
					v += 1000
				}
			case 1:
				v += 2000
			}
			year = v
		case "MM":
			mon, err = readNum(n.kw, 2)
		case "MONTH", "Month", "month":
			mon, err = readName(n.kw, monthNames, 0)
			mon++
		case "MON", "Mon", "mon":
			mon, err = readName(n.kw, monthNames, 3)
			mon++
		case "DD":
			mday, err = readNum(n.kw, 2)
		case "DDD":
			doy, err = readNum(n.kw, 3)
		case "DAY", "Day", "day":
			_, err = readName(n.kw, dayNames, 0)
		case "DY", "Dy", "dy":
			_, err = readName(n.kw, dayNames, 3)
		case "HH24":
			hour, err = readNum(n.kw, 2)
		case "HH", "HH12":
			hour, err = readNum(n.kw, 2)
			hour12 = true
		case "MI":
			min, err = readNum(n.kw, 2)
		case "SS":
			sec, err = readNum(n.kw, 2)
		case "MS":
			var v int64
			st := i
			v, err = readNum(n.kw, 3)
			for k := i - st; k < 3; k++ {
				v *= 10
			}
			fsec = v * 1000
		case "US":
			var v int64
			st := i
			v, err = readNum(n.kw, 6)
			for k := i - st; k < 6; k++ {
				v *= 10
			}
			fsec = v
		case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
			skipSpaces()
			hasAMPM = true
			w := len(n.kw)
			if len(s)-i < w {
				return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value %q for %q", s[i:], n.kw)
			}
			v := strings.ToUpper(s[i : i+w])
			switch v {
			case "AM", "A.M.":
			case "PM", "P.M.":
				pm = true
			default:
				return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value %q for %q", s[i:i+w], n.kw)
			}
			i += w
		case "TZH":
			skipSpaces()
			tzSign = 1
			if i < len(s) && s[i] == '-' {
				tzSign = -1
			}
			var v int64
			v, err = readNum(n.kw, 3)
			hasTZ = true
			tzOff = tzSign * abs64(v) * 3600
		case "TZM":
			var v int64
			v, err = readNum(n.kw, 2)
			hasTZ = true
			tzOff += tzSign * v * 60
		default:
			return 0, pgerr.New(pgerr.FeatureNotSupported, "formatting field %q is not supported in to_timestamp", n.kw)
		}
		if err != nil {
			return 0, err
		}
	}
	if hour12 || hasAMPM {
		if hour < 1 || hour > 12 {
			return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if pm && hour < 12 {
			hour += 12
		} else if !pm && hour == 12 {
			hour = 0
		}
	}
	if year < 0 {
		year = 1 // year 0001 when none is given, as PostgreSQL does
	}
	var days int64
	if doy > 0 {
		days = daysFromCivil(int(year), 1, 1) + doy - 1
	} else {
		if mon < 1 || mon > 12 || mday < 1 || mday > int64(daysInMonth(int(year), int(mon))) {
			return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
		}
		days = daysFromCivil(int(year), int(mon), int(mday))
	}
	if hour > 24 || min > 59 || sec > 60 {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
	}
	w := days*usPerDay + ((hour*60+min)*60+sec)*1e6 + fsec
	if !tz {
		return w, nil
	}
	if hasTZ {
		return w - tzOff*1e6, nil
	}
	return newZoneCache(c.Loc).instant(w), nil
}

func init() {
	Builtins["to_char"] = Builtin{
		Result: func(args []types.T) (types.T, bool) {
			if len(args) != 2 || !args[1].IsString() {
				return types.TText, false
			}
			switch args[0].Kind {
			case types.Timestamp, types.TimestampTZ, types.Interval, types.Date, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric:
				return types.TText, true
			}
			return types.TText, false
		},
		Coerce: func(args []types.T) []types.T {
			t := args[0]
			switch t.Kind {
			case types.Date:
				t = types.TTimestampTZ
			case types.Int2:
				t = types.TInt4
			case types.Float4:
				t = types.TFloat8
			}
			return []types.T{t, types.TText}
		},
		Strict: true, Fn: toCharDatum, Ambiguous: unknownAt(0),
	}
}
