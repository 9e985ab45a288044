/** The turn's journeys are the journey engine's client (`@tenet/journeys-client`); the turn's preparation begins them from here. */
export { TurnJourneys, type JourneyTurn } from '@tenet/journeys-client';
