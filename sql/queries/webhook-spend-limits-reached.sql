-- purpose: spend limits that spend recorded since $since_ms made reach their amount and that were not announced yet: a daily limit once per local day, a window once
-- params: $since_ms (a load's start: only days it recorded spend for count)
SELECT d.ad_account_id, d.id AS limit_id, s.day, 'daily' AS kind
FROM daily_spend_limits d
JOIN account_daily_spend s ON s.ad_account_id = d.ad_account_id
  AND s.day >= d.start_date AND (d.end_date IS NULL OR s.day < d.end_date)
WHERE NOT d.removed AND s.spent_micros >= d.amount_micros AND s.updated_at_ms >= $since_ms
  AND NOT EXISTS (SELECT 1 FROM webhook_spend_limit_marks m WHERE m.limit_id = d.id AND m.day = s.day)
UNION ALL
SELECT w.ad_account_id, w.window_id AS limit_id, '' AS day, 'window' AS kind
FROM spend_limit_windows w
JOIN account_daily_spend s ON s.ad_account_id = w.ad_account_id AND s.day >= w.start_date AND s.day < w.end_date
WHERE NOT w.deleted
  AND NOT EXISTS (SELECT 1 FROM webhook_spend_limit_marks m WHERE m.limit_id = w.window_id AND m.day = '')
GROUP BY w.ad_account_id, w.window_id, w.amount_micros
HAVING sum(s.spent_micros) >= w.amount_micros AND max(s.updated_at_ms) >= $since_ms
ORDER BY 1, 2, 3
