-- A subject's recall traces by subject. A subject forget counts them
-- (its plan) and deletes them inside the writer's turn, and the traces
-- page filters by subject; with only (project_id, id) each of these read
-- every trace of the project, a number that grows with every recall
-- (store/forget.go, subjectTracesSQL).
CREATE INDEX recall_traces_subject ON recall_traces (project_id, subject_id, id);
