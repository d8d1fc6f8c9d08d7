import { journeyIn } from './journey-scenario.ts';

journeyIn('application/bson');
