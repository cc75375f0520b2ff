-- purpose: audiences still waiting for their processing job (the reconciler re-queues them)
-- params: none
SELECT id FROM custom_audiences WHERE status = 'processing' ORDER BY seq
