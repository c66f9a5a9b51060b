/** The package version reported as serverInfo.version (read once by the service layer). */
import { PRODUCT_VERSION } from '../../service/index.js';

export const SERVER_VERSION: string = PRODUCT_VERSION;
