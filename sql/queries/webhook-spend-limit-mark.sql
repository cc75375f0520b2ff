-- purpose: remember that a spend limit was announced as reached (for a local day, or '' for a window)
-- params: $limit $day $account $now_ms
INSERT INTO webhook_spend_limit_marks VALUES ($limit, $day, $account, $now_ms)
