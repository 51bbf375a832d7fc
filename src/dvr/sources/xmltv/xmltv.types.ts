/** What the XMLTV parser hands its consumer (see xmltv.parser.ts for the decisions behind each field). */
export interface XmltvChannel {
  id: string;
  displayNames: string[];
  number?: string;
  icon?: string;
}

export interface XmltvProgramme {
  channel: string;
  /** Epoch seconds. */
  start: number;
  /** Epoch seconds. */
  stop?: number;
  title: string;
  episodeTitle?: string;
  /** 1-based (xmltv_ns is converted; onscreen is taken as written). */
  season?: number;
  episode?: number;
  summary?: string;
  categories: string[];
  /** 'YYYY-MM-DD' */
  originalAirDate?: string;
  isNew: boolean;
  previouslyShown: boolean;
  rating?: string;
  image?: string;
  programId?: string;
  seriesId?: string;
  year?: number;
}

export interface XmltvHandlers {
  channel?(channel: XmltvChannel): void;
  programme?(programme: XmltvProgramme): void;
}

export interface XmltvCounts {
  channels: number;
  programmes: number;
  skipped: number;
}
