-- The highest id each table has used, so rows inserted after its newest
-- rows were deleted (an eval scratch project, a forgotten candidate) get
-- new ids: an audit row or a link naming an id never comes to mean
-- another object. SQLite alone would reuse MAX(id) + 1.
CREATE TABLE id_floors (
	tbl TEXT PRIMARY KEY,
	id  INTEGER NOT NULL
) WITHOUT ROWID;
