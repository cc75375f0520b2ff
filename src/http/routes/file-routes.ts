import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.js';

/** POST /upload, POST /uploads (being built). */
export async function fileRoutes(_app: FastifyInstance, _deps: AppDeps): Promise<void> {}
