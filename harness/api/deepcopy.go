package api

import (
	"reflect"
	"sync"
)

// DeepCopy returns a copy of obj that shares no maps, slices or pointers
// with it, so the copy can be changed freely (an informer's cached object
// must never be mutated; copy it first). It copies by reflection rather
// than through JSON, so nothing is lost: sub-second times, a Quantity's
// format and unknown raw fields all survive. A nil obj gives nil.
func DeepCopy[T Object](obj T) T {
	if isNil(obj) {
		return obj
	}
	src := reflect.ValueOf(obj)
	dst := reflect.New(src.Type()).Elem()
	deepCopyValue(dst, src)
	return dst.Interface().(T)
}

// DeepCopyValue deep-copies any value made of the types in this package
// (a Kind's object, a List, a PodSpec, ...).
func DeepCopyValue[T any](v T) T {
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	deepCopyValue(dst, src)
	return dst.Interface().(T)
}

func deepCopyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		if planOf(src.Type().Elem()).deep {
			deepCopyValue(p.Elem(), src.Elem())
		} else {
			p.Elem().Set(src.Elem())
		}
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		c := reflect.New(src.Elem().Type()).Elem()
		deepCopyValue(c, src.Elem())
		dst.Set(c)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		if planOf(src.Type().Elem()).deep {
			for i := 0; i < src.Len(); i++ {
				deepCopyValue(s.Index(i), src.Index(i))
			}
		} else {
			reflect.Copy(s, src)
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		deep := planOf(src.Type().Elem()).deep
		iter := src.MapRange()
		for iter.Next() {
			if !deep {
				m.SetMapIndex(iter.Key(), iter.Value())
				continue
			}
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopyValue(v, iter.Value())
			m.SetMapIndex(iter.Key(), v)
		}
		dst.Set(m)
	case reflect.Struct:
		// Copy the whole struct first: that carries unexported state
		// (time.Time's wall clock, a Quantity's immutable big.Int), then
		// deepen the exported fields that hold pointers, slices, maps or
		// interfaces.
		dst.Set(src)
		for _, i := range planOf(src.Type()).fields {
			deepCopyValue(dst.Field(i), src.Field(i))
		}
	default:
		dst.Set(src)
	}
}

// copyPlan says how to deep-copy values of one type: whether a plain
// assignment shares memory (deep), and for a struct which exported
// fields do. Working it out once per type, not per value, made a pod's
// copy several times faster.
type copyPlan struct {
	deep   bool
	fields []int
}

var copyPlans sync.Map // reflect.Type -> *copyPlan

func planOf(t reflect.Type) *copyPlan {
	if p, ok := copyPlans.Load(t); ok {
		return p.(*copyPlan)
	}
	p := &copyPlan{}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		p.deep = true
	case reflect.Array:
		p.deep = planOf(t.Elem()).deep
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && planOf(f.Type).deep {
				p.fields = append(p.fields, i)
			}
		}
		p.deep = len(p.fields) > 0
	}
	got, _ := copyPlans.LoadOrStore(t, p)
	return got.(*copyPlan)
}
