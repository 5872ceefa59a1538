package remote

import (
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/kubekata/kubekata/harness/api"
)

// Two things a Go value has that its JSON loses, and that a suite can see
// in one process: an api.Time finer than the second (an api.MicroTime
// finer than the microsecond), which the JSON cuts as the API stores it;
// and memory a function's result shares with its arguments (a pod whose
// labels are the template's map). A pure call sends both beside the JSON
// (exactTimes, aliases), and the other side puts them back
// (restoreTimes, share), so that the suite's checks see what they would
// see in process: a pod Ready since 50s+1ns is not available at 60s with
// minReadySeconds 10, a condition's time is what the learner's code set,
// and changing the pod NewPod returned changes the ReplicaSet when the
// learner's code shared the template's map.

// A path is where a value is inside another: a struct's field or a
// slice's element at each step, pointers followed on the way.
type path []int

// timeAt is an exact time whose JSON is not: where it is, and the time.
type timeAt struct {
	At path      `json:"at"`
	T  time.Time `json:"t"`
}

var (
	timeType      = reflect.TypeFor[api.Time]()
	microTimeType = reflect.TypeFor[api.MicroTime]()
	infos         sync.Map // reflect.Type → *typeInfo
)

// typeInfo is what walk needs of a type: whether a value of it may hold
// an api.Time, an api.MicroTime, a map, a slice or a pointer (the only
// types worth walking), and for a struct, its exported fields that may.
type typeInfo struct {
	reaches bool
	fields  []int
}

func infoOf(t reflect.Type) *typeInfo {
	if v, ok := infos.Load(t); ok {
		return v.(*typeInfo)
	}
	// A recursive type: assume it reaches while it is worked out.
	infos.Store(t, &typeInfo{reaches: true})
	ti := &typeInfo{}
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer:
		ti.reaches = true
	case reflect.Array:
		ti.reaches = infoOf(t.Elem()).reaches
	case reflect.Struct:
		if t == timeType || t == microTimeType {
			ti.reaches = true
			break
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && infoOf(f.Type).reaches {
				ti.fields = append(ti.fields, i)
			}
		}
		ti.reaches = len(ti.fields) > 0
	}
	infos.Store(t, ti)
	return ti
}

// walk calls visit for every value reachable from v through pointers,
// exported struct fields and slice and array elements (not map entries),
// with its path, which visit must copy to keep; visit returns false to
// not go below a value.
func walk(v reflect.Value, visit func(v reflect.Value, at path) bool) {
	var at path
	var rec func(v reflect.Value)
	rec = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		ti := infoOf(v.Type())
		if !ti.reaches || !visit(v, at) {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				rec(v.Elem())
			}
		case reflect.Struct:
			for _, i := range ti.fields {
				at = append(at, i)
				rec(v.Field(i))
				at = at[:len(at)-1]
			}
		case reflect.Slice, reflect.Array:
			if !infoOf(v.Type().Elem()).reaches {
				return
			}
			for i := range v.Len() {
				at = append(at, i)
				rec(v.Index(i))
				at = at[:len(at)-1]
			}
		}
	}
	rec(v)
}

// find is the value at the path from v, following pointers; false when a
// nil pointer or a short slice is on the way.
func find(v reflect.Value, at path) (reflect.Value, bool) {
	for _, i := range at {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			if i < 0 || i >= v.NumField() {
				return reflect.Value{}, false
			}
			v = v.Field(i)
		case reflect.Slice, reflect.Array:
			if i < 0 || i >= v.Len() {
				return reflect.Value{}, false
			}
			v = v.Index(i)
		default:
			return reflect.Value{}, false
		}
	}
	return v, true
}

// exactTimes are the times in v that its JSON cuts.
func exactTimes(v any) []timeAt {
	var out []timeAt
	walk(reflect.ValueOf(v), func(v reflect.Value, at path) bool {
		switch v.Type() {
		case timeType:
			if t := v.Interface().(api.Time).Time; t.Nanosecond() != 0 {
				out = append(out, timeAt{At: slices.Clone(at), T: t})
			}
		case microTimeType:
			if t := v.Interface().(api.MicroTime).Time; t.Nanosecond()%1000 != 0 {
				out = append(out, timeAt{At: slices.Clone(at), T: t})
			}
		}
		return true
	})
	return out
}

// restoreTimes puts the exact times back into v (a pointer), where the
// same JSON decoded holds the cut ones.
func restoreTimes(v any, times []timeAt) {
	root := reflect.ValueOf(v)
	for _, ta := range times {
		f, ok := find(root, ta.At)
		for ok && f.Kind() == reflect.Pointer && !f.IsNil() {
			f = f.Elem() // a *api.Time: the time is where it points
		}
		if !ok || !f.CanSet() {
			continue
		}
		switch f.Type() {
		case timeType:
			f.Set(reflect.ValueOf(api.Time{Time: ta.T}))
		case microTimeType:
			f.Set(reflect.ValueOf(api.MicroTime{Time: ta.T}))
		}
	}
}

// alias says that the result's value at Result is the argument's at Arg:
// the same map, slice or pointer.
type alias struct {
	Result path `json:"result"`
	Arg    path `json:"arg"`
}

// identity is what makes two maps, slices or pointers the same memory.
type identity struct {
	t   reflect.Type
	ptr uintptr
	len int
}

func identityOf(v reflect.Value) (identity, bool) {
	switch v.Kind() {
	case reflect.Map, reflect.Pointer:
		if v.IsNil() {
			return identity{}, false
		}
		return identity{t: v.Type(), ptr: v.Pointer()}, true
	case reflect.Slice:
		if v.Cap() == 0 || v.Type().Elem().Size() == 0 {
			return identity{}, false
		}
		return identity{t: v.Type(), ptr: v.Pointer(), len: v.Len()}, true
	}
	return identity{}, false
}

// aliases are the maps, slices and pointers of result that are arg's
// (the outermost of each).
func aliases(result, arg any) []alias {
	index := map[identity]path{}
	walk(reflect.ValueOf(arg), func(v reflect.Value, at path) bool {
		if id, ok := identityOf(v); ok {
			if _, seen := index[id]; !seen {
				index[id] = slices.Clone(at)
			}
		}
		return true
	})
	if len(index) == 0 {
		return nil
	}
	var out []alias
	walk(reflect.ValueOf(result), func(v reflect.Value, at path) bool {
		if id, ok := identityOf(v); ok {
			if argAt, ok := index[id]; ok {
				out = append(out, alias{Result: slices.Clone(at), Arg: argAt})
				return false
			}
		}
		return true
	})
	return out
}

// share makes the result's values (result a pointer to it) the caller's
// argument's where the program's were the same memory.
func share(result, arg any, as []alias) {
	r, a := reflect.ValueOf(result), reflect.ValueOf(arg)
	for _, al := range as {
		dst, ok1 := find(r, al.Result)
		src, ok2 := find(a, al.Arg)
		if !ok1 || !ok2 || !dst.CanSet() || dst.Type() != src.Type() {
			continue
		}
		dst.Set(src)
	}
}
