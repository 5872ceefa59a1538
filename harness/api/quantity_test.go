package api

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in     string
		want   string // canonical String()
		milli  int64
		value  int64
		format Format
	}{
		{"100m", "100m", 100, 1, DecimalSI},
		{"0.5", "500m", 500, 1, DecimalSI},
		{".5", "500m", 500, 1, DecimalSI},
		{"1.5", "1500m", 1500, 2, DecimalSI},
		{"0.1", "100m", 100, 1, DecimalSI},
		{"2", "2", 2000, 2, DecimalSI},
		{"+2", "2", 2000, 2, DecimalSI},
		{"5.", "5", 5000, 5, DecimalSI},
		{"1000", "1k", 1000000, 1000, DecimalSI},
		{"1024", "1024", 1024000, 1024, DecimalSI},
		{"500M", "500M", 500000000000, 500000000, DecimalSI},
		{"1E", "1E", math.MaxInt64, 1000000000000000000, DecimalSI}, // 10^21 milli clamps
		{"128Mi", "128Mi", 134217728000, 134217728, BinarySI},
		{"1Gi", "1Gi", 1073741824000, 1073741824, BinarySI},
		{"1.5Gi", "1536Mi", 1610612736000, 1610612736, BinarySI},
		{"1536Mi", "1536Mi", 1610612736000, 1610612736, BinarySI},
		{"2048Mi", "2Gi", 2147483648000, 2147483648, BinarySI},
		{"0.5Gi", "512Mi", 536870912000, 536870912, BinarySI},
		{"0.5Ki", "512", 512000, 512, BinarySI}, // below 1024 prints in DecimalSI
		{"1Ki", "1Ki", 1024000, 1024, BinarySI},
		{"0.5Mi", "512Ki", 524288000, 524288, BinarySI},
		{"1e3", "1e3", 1000000, 1000, DecimalExponent},
		{"12e6", "12e6", 12000000000, 12000000, DecimalExponent},
		{"1.5e3", "1500", 1500000, 1500, DecimalExponent},
		{"1E3", "1e3", 1000000, 1000, DecimalExponent},
		{"1e-10", "1e-9", 1, 1, DecimalExponent}, // rounded up to 1n
		{"1n", "1n", 1, 1, DecimalSI},
		{"0.0001", "100u", 1, 1, DecimalSI},
		{"-100m", "-100m", -100, -1, DecimalSI},
		{"-1.5", "-1500m", -1500, -2, DecimalSI},
		{"0", "0", 0, 0, DecimalSI},
		{"0Mi", "0", 0, 0, BinarySI},
		{"000.000", "0", 0, 0, DecimalSI},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if err != nil {
			t.Errorf("ParseQuantity(%q) error = %v, want nil", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("ParseQuantity(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		if q.Format != tt.format {
			t.Errorf("ParseQuantity(%q).Format = %q, want %q", tt.in, q.Format, tt.format)
		}
		if got := q.MilliValue(); got != tt.milli {
			t.Errorf("ParseQuantity(%q).MilliValue() = %d, want %d", tt.in, got, tt.milli)
		}
		if got := q.Value(); got != tt.value {
			t.Errorf("ParseQuantity(%q).Value() = %d, want %d", tt.in, got, tt.value)
		}
		// The canonical form parses back to the same value.
		again, err := ParseQuantity(q.String())
		if err != nil || again.Cmp(q) != 0 {
			t.Errorf("ParseQuantity(%q) = %v, %v, want the value of %q", q.String(), again, err, tt.in)
		}
	}
}

func TestParseQuantityErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"", ErrFormatWrong},
		{"abc", ErrFormatWrong},
		{"1.5.5", ErrFormatWrong},
		{"1 Mi", ErrFormatWrong},
		{"1Mb", ErrFormatWrong},
		{"1Gi ", ErrFormatWrong},
		{"1K", ErrSuffix},
		{"1e", ErrSuffix},
		{"1Mii", ErrSuffix},
		{"1mi", ErrSuffix},
		{"1e999", ErrTooLarge},
	}
	for _, tt := range tests {
		q, err := ParseQuantity(tt.in)
		if !errors.Is(err, tt.want) {
			t.Errorf("ParseQuantity(%q) = %v, %v, want error %q", tt.in, q, err, tt.want)
		}
	}
	want := "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
	if ErrFormatWrong.Error() != want {
		t.Errorf("ErrFormatWrong = %q, want %q", ErrFormatWrong, want)
	}
}

func TestQuantityArithmetic(t *testing.T) {
	sum := MustParse("0.1")
	sum.Add(MustParse("0.2"))
	if got, want := sum.String(), "300m"; got != want {
		t.Errorf("0.1 + 0.2 = %q, want %q", got, want)
	}
	if sum.Cmp(MustParse("300m")) != 0 {
		t.Errorf("(0.1 + 0.2).Cmp(300m) = %d, want 0", sum.Cmp(MustParse("300m")))
	}

	var total Quantity
	for i := 0; i < 10; i++ {
		total.Add(MustParse("100m"))
	}
	if total.Cmp(MustParse("1")) != 0 || total.MilliValue() != 1000 {
		t.Errorf("10 x 100m = %v (milli %d), want 1 (milli 1000)", total, total.MilliValue())
	}

	mem := MustParse("1Gi")
	mem.Sub(MustParse("512Mi"))
	if got, want := mem.String(), "512Mi"; got != want {
		t.Errorf("1Gi - 512Mi = %q, want %q", got, want)
	}

	neg := MustParse("100m")
	neg.Sub(MustParse("250m"))
	if got, want := neg.String(), "-150m"; got != want || neg.Sign() != -1 {
		t.Errorf("100m - 250m = %q (sign %d), want %q (sign -1)", got, neg.Sign(), want)
	}

	var zero Quantity
	zero.Add(MustParse("1Gi"))
	if got, want := zero.String(), "1Gi"; got != want {
		t.Errorf("0 + 1Gi = %q, want %q (a zero quantity takes the added format)", got, want)
	}

	cmps := []struct {
		a, b string
		want int
	}{
		{"1Gi", "1G", 1},
		{"1000m", "1", 0},
		{"999m", "1", -1},
		{"1e3", "1k", 0},
		{"-1", "0", -1},
		{"1.5Gi", "1536Mi", 0},
	}
	for _, c := range cmps {
		if got := MustParse(c.a).Cmp(MustParse(c.b)); got != c.want {
			t.Errorf("MustParse(%q).Cmp(%q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}

	// Quantities are values: adding to a copy leaves the original alone.
	a := MustParse("1")
	b := a
	b.Add(MustParse("1"))
	if a.String() != "1" || b.String() != "2" {
		t.Errorf("after b := a; b.Add(1): a = %v, b = %v, want 1 and 2", a, b)
	}

	// Crossing the int64 range of nano units (about 8.6Gi) keeps values
	// exact and canonical.
	big := MustParse("8Gi")
	big.Add(MustParse("8Gi"))
	if got := big.String(); got != "16Gi" || big.Value() != 16<<30 || big.Cmp(MustParse("8Gi")) != 1 || MustParse("8Gi").Cmp(big) != -1 {
		t.Errorf("8Gi + 8Gi = %q (value %d), want 16Gi, greater than 8Gi", got, big.Value())
	}
	big.Sub(MustParse("8Gi"))
	if !reflect.DeepEqual(big, MustParse("8Gi")) {
		t.Errorf("16Gi - 8Gi = %#v, want reflect.DeepEqual to MustParse(8Gi) = %#v", big, MustParse("8Gi"))
	}
	huge := MustParse("1Ei")
	huge.Neg()
	if got := huge.String(); got != "-1Ei" || huge.Sign() != -1 {
		t.Errorf("-(1Ei) = %q, want -1Ei", got)
	}
	if got := MustParse("100Gi").MilliValue(); got != 100<<30*1000 {
		t.Errorf("MustParse(100Gi).MilliValue() = %d, want %d", got, int64(100<<30*1000))
	}

	if got := NewMilliQuantity(1500, DecimalSI).String(); got != "1500m" {
		t.Errorf("NewMilliQuantity(1500).String() = %q, want %q", got, "1500m")
	}
	if got := NewQuantity(3*1024*1024*1024, BinarySI).String(); got != "3Gi" {
		t.Errorf("NewQuantity(3Gi, BinarySI).String() = %q, want %q", got, "3Gi")
	}
	if got := NewScaledQuantity(5, Mega).String(); got != "5M" {
		t.Errorf("NewScaledQuantity(5, Mega).String() = %q, want %q", got, "5M")
	}
	if !reflect.DeepEqual(MustParse("1"), *NewQuantity(1, DecimalSI)) {
		t.Errorf("MustParse(1) and NewQuantity(1) are not reflect.DeepEqual")
	}
	if !reflect.DeepEqual(MustParse("0"), Quantity{Format: DecimalSI}) {
		t.Errorf("MustParse(0) is not reflect.DeepEqual to Quantity{Format: DecimalSI}")
	}
	if v, ok := MustParse("1.5").AsInt64(); ok {
		t.Errorf("MustParse(1.5).AsInt64() = %d, true, want false", v)
	}
	if got := MustParse("-1.5").Value(); got != -2 {
		t.Errorf("MustParse(-1.5).Value() = %d, want -2 (away from zero)", got)
	}
}

func TestQuantityJSON(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`"500m"`, "500m"},
		{`"0.5"`, "500m"},
		{`0.5`, "500m"},
		{`1`, "1"},
		{`1e3`, "1e3"},
		{`"128Mi"`, "128Mi"},
		{`null`, "0"},
	}
	for _, tt := range tests {
		var q Quantity
		if err := json.Unmarshal([]byte(tt.in), &q); err != nil {
			t.Errorf("json.Unmarshal(%s) error = %v", tt.in, err)
			continue
		}
		if q.String() != tt.want {
			t.Errorf("json.Unmarshal(%s) = %q, want %q", tt.in, q.String(), tt.want)
		}
		b, _ := json.Marshal(q)
		if string(b) != `"`+tt.want+`"` {
			t.Errorf("json.Marshal(%s) = %s, want %q", tt.in, b, tt.want)
		}
	}
	var q Quantity
	if err := json.Unmarshal([]byte(`"lots"`), &q); !errors.Is(err, ErrFormatWrong) {
		t.Errorf(`json.Unmarshal("lots") error = %v, want ErrFormatWrong`, err)
	}
	rl := ResourceList{ResourceCPU: MustParse("2"), ResourceMemory: MustParse("1Gi")}
	b, _ := json.Marshal(rl)
	if got, want := string(b), `{"cpu":"2","memory":"1Gi"}`; got != want {
		t.Errorf("json.Marshal(ResourceList) = %s, want %s", got, want)
	}
	if got := rl.Cpu().MilliValue(); got != 2000 {
		t.Errorf("rl.Cpu().MilliValue() = %d, want 2000", got)
	}
	if got := rl.Pods(); !got.IsZero() {
		t.Errorf("rl.Pods() = %v, want 0 when absent", got)
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"100m", "0.5", "128Mi", "1Gi", "1e3", "-1.5Gi", ".5", "1e-10", "1K", "", "+", "1.5.5", "12E", "0.0000000001Ki"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuantity(s)
		if err != nil {
			return
		}
		// The canonical form parses back to the same value and is a
		// fixed point.
		c := q.String()
		again, err := ParseQuantity(c)
		if err != nil {
			t.Fatalf("ParseQuantity(%q).String() = %q, which does not parse: %v", s, c, err)
		}
		if again.Cmp(q) != 0 || again.String() != c {
			t.Fatalf("ParseQuantity(%q) = %q, reparsed %q, want the same value and form", s, c, again.String())
		}
		// Adding and subtracting a large value is exact and canonical.
		sum := q
		sum.Add(MustParse("8Gi"))
		sum.Sub(MustParse("8Gi"))
		if sum.Cmp(q) != 0 || (sum.n == nil) != (q.n == nil) || sum.i != q.i {
			t.Fatalf("ParseQuantity(%q) + 8Gi - 8Gi = %#v, want %#v", s, sum, q)
		}
	})
}

// BenchmarkQuantityAdd measures Add against the baseline of adding int64s;
// compare the two ns/op figures of one run.
func BenchmarkQuantityAdd(b *testing.B) {
	var sum Quantity
	q := MustParse("250m")
	for b.Loop() {
		sum.Add(q)
	}
}

func BenchmarkInt64AddBaseline(b *testing.B) {
	var sum int64
	for b.Loop() {
		sum += 250
	}
	_ = sum
}
