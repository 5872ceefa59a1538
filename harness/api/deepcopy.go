package api

import "reflect"

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
		deepCopyValue(p.Elem(), src.Elem())
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
		for i := 0; i < src.Len(); i++ {
			deepCopyValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		iter := src.MapRange()
		for iter.Next() {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopyValue(v, iter.Value())
			m.SetMapIndex(iter.Key(), v)
		}
		dst.Set(m)
	case reflect.Struct:
		// Copy the whole struct first: that carries unexported state
		// (time.Time's wall clock, a Quantity's immutable big.Int), then
		// deepen every exported field.
		dst.Set(src)
		for i := 0; i < src.NumField(); i++ {
			if src.Type().Field(i).IsExported() {
				deepCopyValue(dst.Field(i), src.Field(i))
			}
		}
	default:
		dst.Set(src)
	}
}
