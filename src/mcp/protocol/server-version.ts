/** Who this server says it is (serverInfo): its name, and the package version (read once by the service layer). */
import { PRODUCT_VERSION } from '../../service/index.js';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

export const SERVER_NAME = 'hyphae';

export const SERVER_VERSION: string = PRODUCT_VERSION;
