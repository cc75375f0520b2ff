-- purpose: read an ad by id alone (the review job)
-- params: $id
SELECT * FROM ads WHERE id = $id
