// Package rowscan is how both stores collect a query's rows once a
// store's scanner has read each one (a database/sql row in SQLite, a
// pgx row in PostgreSQL): the loop bodies their queryAll calls for every
// row. The SQL and the scanners stay in each store.
package rowscan

// Scanner reads one row's columns (a database/sql row, a pgx row).
type Scanner interface{ Scan(dest ...any) error }

// Append appends what scan reads of each row to out.
func Append[R Scanner, T any](scan func(R) (T, error), out *[]T) func(R) error {
	return func(row R) error {
		v, err := scan(row)
		if err != nil {
			return err
		}
		*out = append(*out, v)
		return nil
	}
}

// AppendV is Append for a scanner that takes extra destinations (the
// columns a query selects after the object's own), called with none.
func AppendV[R Scanner, T any](scan func(R, ...any) (T, error), out *[]T) func(R) error {
	return Append(func(row R) (T, error) { return scan(row) }, out)
}

// Keyed collects rows of a key and a value into out.
func Keyed[R Scanner, K comparable, V any](out map[K]V) func(R) error {
	return func(row R) error {
		var (
			k K
			v V
		)
		if err := row.Scan(&k, &v); err != nil {
			return err
		}
		out[k] = v
		return nil
	}
}
