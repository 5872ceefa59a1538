package api

// resource.Quantity, exact: a Quantity holds its value as an integer
// number of nano units (an int64 while it fits, else a math/big.Int), so
// that "0.1" + "0.2" is exactly "300m" and "1.5Gi" is exactly 1610612736.
// Like upstream, a value finer than 1n is rounded up (away from zero) to
// the next nano unit.

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Format is how a Quantity prints: with a decimal SI suffix (k, M, m),
// a binary SI suffix (Ki, Mi, Gi) or a decimal exponent (e3).
type Format string

const (
	DecimalExponent = Format("DecimalExponent") // e.g. 12e6
	BinarySI        = Format("BinarySI")        // e.g. 12Mi (12 * 2^20)
	DecimalSI       = Format("DecimalSI")       // e.g. 12M (12 * 10^6)
)

// Scale is a power of ten, as in 10^Scale.
type Scale int32

const (
	Nano  Scale = -9
	Micro Scale = -6
	Milli Scale = -3
	Kilo  Scale = 3
	Mega  Scale = 6
	Giga  Scale = 9
	Tera  Scale = 12
	Peta  Scale = 15
	Exa   Scale = 18
)

// splitREString is the grammar of a quantity, quoted in ErrFormatWrong as
// upstream does.
const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

// The parse errors, with upstream's messages.
var (
	ErrFormatWrong = errors.New("quantities must match the regular expression '" + splitREString + "'")
	ErrNumeric     = errors.New("unable to parse numeric part of quantity")
	ErrSuffix      = errors.New("unable to parse quantity's suffix")
	// ErrTooLarge is not upstream's: it bounds decimal values to
	// [10^-100, 10^100), and binary ones to 100 integer digits, so that
	// "1e999999999" cannot allocate a gigantic integer.
	ErrTooLarge = errors.New("quantity exponent is out of range")
)

// maxExponent bounds decimal quantities below 10^100 and their exponents
// above -100 (upstream has no such bound, but its values are capped to
// int64 ranges in practice, so this leaves plenty of room).
const maxExponent = 100

var (
	bigTen      = big.NewInt(10)
	big1024     = big.NewInt(1024)
	nanosPerOne = big.NewInt(1e9)
)

// Quantity is a fixed-point number with a unit suffix, such as "100m"
// (0.1 cpu) or "128Mi" (memory). The zero Quantity is 0.
type Quantity struct {
	// i is the value in nano units when it fits an int64 (n is nil then);
	// n holds it otherwise. The form is canonical, so that equal values
	// are reflect.DeepEqual. A stored *big.Int is never mutated, so copies
	// of a Quantity may share it.
	i int64
	n *big.Int
	// Format is how String prints the value.
	Format Format
}

// ResourceName names a resource in a ResourceList.
type ResourceName string

const (
	ResourceCPU              ResourceName = "cpu"               // cores; 1 = 1000m
	ResourceMemory           ResourceName = "memory"            // bytes
	ResourcePods             ResourceName = "pods"              // a node's pod capacity
	ResourceEphemeralStorage ResourceName = "ephemeral-storage" // bytes
	ResourceStorage          ResourceName = "storage"           // bytes
)

// ResourceList is a set of (resource name, quantity) pairs, as in
// resources.requests, resources.limits, node capacity and allocatable.
type ResourceList map[ResourceName]Quantity

// Name returns a copy of the named quantity, or a zero one in format
// defaultFormat when it is absent.
func (rl ResourceList) Name(name ResourceName, defaultFormat Format) *Quantity {
	if q, ok := rl[name]; ok {
		return &q
	}
	return &Quantity{Format: defaultFormat}
}

// Cpu returns the cpu quantity (zero when absent).
func (rl ResourceList) Cpu() *Quantity { return rl.Name(ResourceCPU, DecimalSI) }

// Memory returns the memory quantity (zero when absent).
func (rl ResourceList) Memory() *Quantity { return rl.Name(ResourceMemory, BinarySI) }

// Pods returns the pods quantity (zero when absent).
func (rl ResourceList) Pods() *Quantity { return rl.Name(ResourcePods, DecimalSI) }

// StorageEphemeral returns the ephemeral-storage quantity (zero when absent).
func (rl ResourceList) StorageEphemeral() *Quantity {
	return rl.Name(ResourceEphemeralStorage, BinarySI)
}

// MustParse parses s and panics if it is not a quantity. For constants in
// code and tests only.
func MustParse(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic("cannot parse '" + s + "': " + err.Error())
	}
	return q
}

// NewQuantity returns value (in units) in the given format.
func NewQuantity(value int64, format Format) *Quantity {
	return NewScaledQuantity(value, 0).withFormat(format)
}

// NewMilliQuantity returns value/1000 in the given format.
func NewMilliQuantity(value int64, format Format) *Quantity {
	return NewScaledQuantity(value, Milli).withFormat(format)
}

// NewScaledQuantity returns value * 10^scale in DecimalSI.
func NewScaledQuantity(value int64, scale Scale) *Quantity {
	q := &Quantity{Format: DecimalSI}
	q.SetScaled(value, scale)
	return q
}

func (q *Quantity) withFormat(f Format) *Quantity {
	q.Format = f
	return q
}

// Set sets q to value units.
func (q *Quantity) Set(value int64) { q.SetScaled(value, 0) }

// SetMilli sets q to value/1000 units.
func (q *Quantity) SetMilli(value int64) { q.SetScaled(value, Milli) }

// SetScaled sets q to value * 10^scale, rounded up to a nano unit.
func (q *Quantity) SetScaled(value int64, scale Scale) {
	q.set(scaleUp(big.NewInt(value), int(scale)-int(Nano)))
}

// ParseQuantity parses a quantity such as "100m", "0.5", "128Mi", "1Gi",
// "1e3" or "-2". Errors are ErrFormatWrong, ErrNumeric, ErrSuffix or
// ErrTooLarge.
func ParseQuantity(str string) (Quantity, error) {
	if len(str) == 0 {
		return Quantity{}, ErrFormatWrong
	}
	if str == "0" {
		return Quantity{Format: DecimalSI}, nil
	}
	positive, num, denom, suf, err := parseQuantityString(str)
	if err != nil {
		return Quantity{}, err
	}
	base, exponent, format, ok := interpretSuffix(suf)
	if !ok {
		return Quantity{}, ErrSuffix
	}
	// Bound the magnitude before reading the digits: integer digits plus
	// exponent for decimal values (the canonical form keeps them, so that
	// it always parses back), integer digits alone for binary ones.
	intDigits := len(strings.TrimLeft(num, "0"))
	if base == 10 && (int(exponent)+intDigits > maxExponent || exponent < -maxExponent) ||
		base == 2 && intDigits > maxExponent {
		return Quantity{}, ErrTooLarge
	}
	denom = stickyFraction(denom)
	digits, ok := new(big.Int).SetString(num+denom, 10)
	if !ok {
		return Quantity{}, ErrNumeric
	}
	// value = digits * 10^-len(denom) * base^exponent, in nanos.
	pow10 := int(-Nano) - len(denom)
	if base == 10 {
		pow10 += int(exponent)
	} else {
		digits.Lsh(digits, uint(exponent))
	}
	n := scaleUp(digits, pow10)
	if !positive {
		n.Neg(n)
	}
	// A binary quantity below 1 cannot print as one; upstream switches it
	// to DecimalSI at parse time.
	if format == BinarySI && n.Sign() != 0 && new(big.Int).Abs(n).Cmp(nanosPerOne) < 0 {
		format = DecimalSI
	}
	q := Quantity{Format: format}
	q.set(n)
	return q, nil
}

// maxFractionDigits is how many fraction digits ParseQuantity reads
// exactly. Upstream (k8s.io/apimachinery/pkg/api/resource/quantity.go,
// ParseQuantity) reads every digit into an inf.Dec, whose big.Int scan is
// quadratic: 3,000,000 digits cost seconds of CPU. It sets no bound and
// returns no error for them, and neither does the kata: it reads the first
// maxFractionDigits digits and folds the rest into one digit that says
// whether any of them is non-zero. The value is then rounded up to the
// next nano unit exactly as if every digit had been read: a fraction digit
// at position p weighs 10^-p * 10^exponent (at most 10^100) or
// 10^-p * 2^exponent (at most 2^60) units, so past position
// 9 + maxExponent = 109 the digits can only decide whether there is a
// remainder to round up, never by how much.
const maxFractionDigits = 128

// stickyFraction keeps the first maxFractionDigits fraction digits and
// replaces the rest by "1" when any of them is not zero.
func stickyFraction(denom string) string {
	if len(denom) <= maxFractionDigits {
		return denom
	}
	if strings.Trim(denom[maxFractionDigits:], "0") == "" {
		return denom[:maxFractionDigits]
	}
	return denom[:maxFractionDigits] + "1"
}

// scaleUp returns v * 10^p, rounding up (away from zero) when p < 0.
func scaleUp(v *big.Int, p int) *big.Int {
	if p >= 0 {
		return new(big.Int).Mul(v, new(big.Int).Exp(bigTen, big.NewInt(int64(p)), nil))
	}
	return divAway(v, new(big.Int).Exp(bigTen, big.NewInt(int64(-p)), nil))
}

// divAway returns v/d rounded away from zero (d > 0).
func divAway(v, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(v, d, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	} else if r.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

// set stores a value in nanos in canonical form.
func (q *Quantity) set(n *big.Int) {
	if n.IsInt64() {
		q.i, q.n = n.Int64(), nil
		return
	}
	q.i, q.n = 0, n
}

// parseQuantityString splits str into sign, integer digits, fraction
// digits and suffix, exactly as upstream's parser does.
func parseQuantityString(str string) (positive bool, num, denom, suffix string, err error) {
	positive = true
	pos := 0
	end := len(str)
	if pos < end {
		switch str[0] {
		case '-':
			positive = false
			pos++
		case '+':
			pos++
		}
	}
	// Strip leading zeros.
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos >= end {
		return positive, "0", "", "", nil
	}
	start := pos
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	num = str[start:pos]
	if num == "" {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		pos++
		start = pos
		for pos < end && isDigit(str[pos]) {
			pos++
		}
		denom = str[start:pos]
	}
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	if pos < end {
		return false, "", "", "", ErrFormatWrong
	}
	return positive, num, denom, str[suffixStart:], nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var (
	decimalSuffixes = map[string]int32{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
	binarySuffixes  = map[string]int32{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
	decimalByExp    = map[int]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
	binaryByExp     = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)

// interpretSuffix returns what a suffix means: base 10 or 2, the
// exponent, and the format it implies.
func interpretSuffix(s string) (base, exponent int32, f Format, ok bool) {
	if e, ok := decimalSuffixes[s]; ok {
		return 10, e, DecimalSI, true
	}
	if e, ok := binarySuffixes[s]; ok {
		return 2, e, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		e, err := strconv.ParseInt(s[1:], 10, 32)
		if err != nil {
			return 0, 0, DecimalExponent, false
		}
		return 10, int32(e), DecimalExponent, true
	}
	return 0, 0, DecimalExponent, false
}

// String returns the canonical form: the shortest integer mantissa with
// an exponent that is a multiple of three (decimal) or of ten (binary),
// as upstream prints it: "0.5" prints "500m", "1.5Gi" prints "1536Mi",
// "2000" prints "2k". A BinarySI value that is not a whole number, or
// whose magnitude is below 1024, prints in DecimalSI.
func (q Quantity) String() string {
	if q.IsZero() {
		return "0"
	}
	n := q.nanos()
	format := q.Format
	switch format {
	case DecimalExponent, DecimalSI:
	case BinarySI:
		abs := new(big.Int).Abs(n)
		if abs.Cmp(new(big.Int).Mul(big1024, nanosPerOne)) < 0 ||
			new(big.Int).Rem(abs, nanosPerOne).Sign() != 0 {
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}
	if format == BinarySI {
		v := new(big.Int).Quo(n, nanosPerOne)
		exp := 0
		r := new(big.Int)
		for exp < len(binaryByExp)-1 {
			quo, rem := new(big.Int).QuoRem(v, big1024, r)
			if rem.Sign() != 0 {
				break
			}
			v = quo
			exp++
		}
		return v.String() + binaryByExp[exp]
	}
	mantissa := new(big.Int).Set(n)
	exp := int(Nano)
	r := new(big.Int)
	for {
		quo, rem := new(big.Int).QuoRem(mantissa, bigTen, r)
		if rem.Sign() != 0 {
			break
		}
		mantissa = quo
		exp++
	}
	for exp%3 != 0 {
		mantissa.Mul(mantissa, bigTen)
		exp--
	}
	if format == DecimalSI {
		if s, ok := decimalByExp[exp]; ok {
			return mantissa.String() + s
		}
	}
	if exp == 0 {
		return mantissa.String()
	}
	return mantissa.String() + "e" + strconv.Itoa(exp)
}

// MarshalJSON writes the canonical string.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return []byte(`"` + q.String() + `"`), nil
}

// UnmarshalJSON reads a JSON string or number; null gives zero.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*q = Quantity{}
		return nil
	}
	s := string(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	parsed, err := ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}

// nanos returns the value in nanos as a big.Int the caller must not change.
func (q Quantity) nanos() *big.Int {
	if q.n != nil {
		return q.n
	}
	return big.NewInt(q.i)
}

// IsZero reports whether q is 0.
func (q Quantity) IsZero() bool { return q.n == nil && q.i == 0 }

// Sign returns -1, 0 or 1.
func (q Quantity) Sign() int {
	if q.n != nil {
		return q.n.Sign()
	}
	switch {
	case q.i < 0:
		return -1
	case q.i > 0:
		return 1
	}
	return 0
}

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than y.
func (q Quantity) Cmp(y Quantity) int {
	if q.n == nil && y.n == nil {
		switch {
		case q.i < y.i:
			return -1
		case q.i > y.i:
			return 1
		}
		return 0
	}
	return q.nanos().Cmp(y.nanos())
}

// CmpInt64 compares q with y units.
func (q Quantity) CmpInt64(y int64) int {
	return q.nanos().Cmp(new(big.Int).Mul(big.NewInt(y), nanosPerOne))
}

// Equal reports whether q and y are the same value, whatever their formats.
func (q Quantity) Equal(y Quantity) bool { return q.Cmp(y) == 0 }

// Add sets q to q+y. When q is zero it takes y's format, as upstream.
func (q *Quantity) Add(y Quantity) {
	if q.IsZero() {
		q.Format = y.Format
	}
	if q.n == nil && y.n == nil {
		if s, ok := add64(q.i, y.i); ok {
			q.i = s
			return
		}
	}
	q.set(new(big.Int).Add(q.nanos(), y.nanos()))
}

// Sub sets q to q-y. When q is zero it takes y's format, as upstream.
func (q *Quantity) Sub(y Quantity) {
	if q.IsZero() {
		q.Format = y.Format
	}
	if q.n == nil && y.n == nil && y.i != math.MinInt64 {
		if s, ok := add64(q.i, -y.i); ok {
			q.i = s
			return
		}
	}
	q.set(new(big.Int).Sub(q.nanos(), y.nanos()))
}

// Neg sets q to -q.
func (q *Quantity) Neg() { q.set(new(big.Int).Neg(q.nanos())) }

// add64 returns a+b and whether it did not overflow.
func add64(a, b int64) (int64, bool) {
	s := a + b
	// Overflow happened if both operands have the sign the sum lacks.
	return s, (a^s)&(b^s) >= 0
}

// pow10 holds 10^0 .. 10^18, the powers of ten an int64 can hold.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Value returns q in units, rounded up (away from zero), clamped to int64.
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue returns q in thousandths, rounded up (away from zero),
// clamped to int64: "100m" is 100, "1" is 1000.
func (q Quantity) MilliValue() int64 { return q.ScaledValue(Milli) }

// ScaledValue returns q in units of 10^scale, rounded up (away from zero),
// clamped to int64.
func (q Quantity) ScaledValue(scale Scale) int64 {
	if d := int(scale) - int(Nano); q.n == nil && d >= 0 && d < len(pow10) {
		// Fast path: divide an int64 by a power of ten, away from zero.
		quo, rem := q.i/pow10[d], q.i%pow10[d]
		if rem > 0 {
			quo++
		} else if rem < 0 {
			quo--
		}
		return quo
	}
	if d := int(scale) - int(Nano); q.n != nil && d >= 0 && d < len(pow10) {
		if v, ok := scaledWords(q.n, uint64(pow10[d])); ok {
			return v
		}
	}
	v := scaleUp(q.nanos(), int(Nano)-int(scale))
	switch {
	case v.IsInt64():
		return v.Int64()
	case v.Sign() > 0:
		return math.MaxInt64
	default:
		return math.MinInt64
	}
}

// scaledWords divides n by div, away from zero, without allocating, when
// n's magnitude fits two 64-bit words and the quotient an int64: memory
// such as "32Gi" is 3.4e19 nanos, past an int64, and the scheduler reads
// it for every pod it places (its slow path through math/big allocates).
// ok is false when it cannot, and the caller takes the slow path.
func scaledWords(n *big.Int, div uint64) (int64, bool) {
	if bits.UintSize != 64 || n.BitLen() > 128 {
		return 0, false
	}
	var hi, lo uint64
	w := n.Bits() // the magnitude, least significant word first
	if len(w) > 0 {
		lo = uint64(w[0])
	}
	if len(w) > 1 {
		hi = uint64(w[1])
	}
	if hi >= div { // the quotient needs more than 64 bits
		return 0, false
	}
	quo, rem := bits.Div64(hi, lo, div)
	if rem != 0 {
		quo++
	}
	if quo == 0 || quo > math.MaxInt64 {
		return 0, false
	}
	if n.Sign() < 0 {
		return -int64(quo), true
	}
	return int64(quo), true
}

// AsInt64 returns q in units if it is a whole number that fits an int64.
func (q Quantity) AsInt64() (int64, bool) {
	v, r := new(big.Int).QuoRem(q.nanos(), nanosPerOne, new(big.Int))
	if r.Sign() != 0 || !v.IsInt64() {
		return 0, false
	}
	return v.Int64(), true
}

// AsApproximateFloat64 returns q as a float64, for display and scoring
// only; never compare or add quantities through it.
func (q Quantity) AsApproximateFloat64() float64 {
	f, _ := new(big.Rat).SetFrac(q.nanos(), nanosPerOne).Float64()
	return f
}

// DeepCopy returns a copy of q (Quantity values are immutable inside, so
// this is a plain copy; it exists for symmetry with upstream).
func (q Quantity) DeepCopy() Quantity { return q }
