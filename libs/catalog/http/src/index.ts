export { AgentDefinitionsHttpModule, CatalogHttpModule, DirectoryHttpModule } from './catalog-http.module.js';
