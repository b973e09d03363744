-- episodes, one row per consolidated session, becomes partitioned by
-- project like events (migration 0018, whose partition_by_project does
-- it): a forget that rewrites episode summaries rewrites only its
-- projects' partitions. The primary key becomes (id, project_id).

SELECT partition_by_project('episodes', 'id');
